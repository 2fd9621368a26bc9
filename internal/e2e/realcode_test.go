package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/elf/hostobj"
	"github.com/warplink/warplink/internal/cmpelf"
)

// realProgram is one program of a real-code corpus: the .cu files nvcc
// compiles separately (-dc) and whose objects are linked together, and the
// folders it needs on the include path.
type realProgram struct {
	name string // relative to the corpus root
	srcs []string
	incs []string
	size int64 // the sources' bytes: the smallest program showing a difference is its example
}

// The outcomes of one link, in the order the summary prints them.
const (
	realIdentical   = iota // byte-identical output, same exit status and diagnostics
	realEquivalent         // outputs differ in layout only (internal/cmpelf)
	realDifferent          // outputs differ in content
	realFailed             // exit status or diagnostics differ, or warplink wrote nothing
	realFailedAlike        // both failed, with the same diagnostics
	realOutcomes
)

var realOutcomeNames = [realOutcomes]string{"identical", "equivalent", "different", "failed", "both-failed-alike"}

// realLinkKinds are the links made of each compiled variant: nvlink run
// directly on the host objects (with -g for -G objects, as nvcc -G -dlink
// passes it), the same under nvcc -dlink, and the direct link with
// --kernels-used naming one kernel and with --preserve-relocs.
var realLinkKinds = []string{"direct", "nvcc-dlink", "kernels-used", "preserve-relocs"}

// realResult is the outcome of one link.
type realResult struct {
	kind    string
	outcome int
	detail  string // what differs; every cmpelf difference, one a line
}

// realJob is one program compiled for one architecture with one flag.
type realJob struct {
	prog    *realProgram
	arch    string
	flag    string // "", "-G" or "-lineinfo"
	skipped string // why nvcc could not build it
	results []realResult
}

// TestRealCode compiles the programs of a real-code corpus (public CUDA
// code bases, fetched and unpacked under the folder WARPLINK_REALCODE
// names; see docs/realcode.md) with nvcc -dc for sm_80 and sm_90, plain,
// -G and -lineinfo, and links each variant with nvlink and with warplink:
// directly, under nvcc -dlink (warplink first on PATH as nvlink), with
// --kernels-used naming one kernel and with --preserve-relocs. Every link
// must give byte-identical output (or the same failure). Programs nvcc
// cannot build here count as skipped. Knobs: WARPLINK_REALCODE_N (at most
// N programs, spread evenly over the sorted list), WARPLINK_REALCODE_MATCH
// (a regexp on program names), WARPLINK_REALCODE_ARCHS (comma-separated),
// WARPLINK_REALCODE_JOBS (parallel compiles, at most 2 by default),
// WARPLINK_REALCODE_OUT (a file for every link's result and differences),
// WARPLINK_REALCODE_CACHE (a folder keeping nvcc's objects for later runs),
// WARPLINK_REALCODE_CUDALIB (the folder of the libcudadevrt.a to link
// with, for a toolkit other than the bundled 11.8 one, whose nvcc and
// nvlink come first on PATH).
func TestRealCode(t *testing.T) {
	root := os.Getenv("WARPLINK_REALCODE")
	if root == "" {
		t.Skip("set WARPLINK_REALCODE=<folder of CUDA code bases> (make realcode) to build and link them")
	}
	for _, tool := range []string{"nvcc", "nvlink"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, _ = filepath.Abs(root)
	progs, err := realPrograms(root)
	if err != nil {
		t.Fatal(err)
	}
	progs = realSubset(t, progs)
	archs := []string{"sm_80", "sm_90"}
	if a := os.Getenv("WARPLINK_REALCODE_ARCHS"); a != "" {
		archs = strings.Split(a, ",")
	}
	wlPATH := filepath.Dir(buildNvlink(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
	tmp := t.TempDir()
	var jobs []*realJob
	for i := range progs {
		for _, arch := range archs {
			for _, flag := range []string{"", "-G", "-lineinfo"} {
				jobs = append(jobs, &realJob{prog: &progs[i], arch: arch, flag: flag})
			}
		}
	}
	limit := min(2, runtime.GOMAXPROCS(0))
	if n, err := strconv.Atoi(os.Getenv("WARPLINK_REALCODE_JOBS")); err == nil && n > 0 {
		limit = n
	}
	start := time.Now()
	var g errgroup.Group
	g.SetLimit(limit)
	for i, j := range jobs {
		g.Go(func() error {
			j.run(filepath.Join(tmp, strconv.Itoa(i)), wlPATH)
			return nil
		})
	}
	g.Wait()
	report := realReport(jobs)
	t.Logf("real code: %d programs, %d variants, %s\n%s", len(progs), len(jobs), time.Since(start).Round(time.Second), report.summary)
	if out := os.Getenv("WARPLINK_REALCODE_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report.summary+"\n"+report.details), 0o644); err != nil {
			t.Error(err)
		}
	}
	if report.built == 0 {
		t.Fatal("nvcc built none of the programs")
	}
	for _, line := range report.bad {
		t.Error(line)
	}
}

// realPrograms lists the programs under root: every folder with .cu files
// is one program of those files, except the .cu files another of them
// includes; a folder where several files define main holds one program
// per such file (examples folders).
func realPrograms(root string) ([]realProgram, error) {
	mainRE := regexp.MustCompile(`(?m)^\s*(int|void)\s+main\s*\(`)
	var progs []realProgram
	err := filepath.WalkDir(root, func(dir string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		srcs, _ := filepath.Glob(filepath.Join(dir, "*.cu"))
		if len(srcs) == 0 {
			return nil
		}
		sort.Strings(srcs)
		texts := map[string]string{}
		for _, s := range srcs {
			b, _ := os.ReadFile(s)
			texts[s] = string(b)
		}
		var keep, mains []string
		size := map[string]int64{}
		for _, s := range srcs {
			size[s] = int64(len(texts[s]))
			included := false
			for _, o := range srcs {
				if o != s && strings.Contains(texts[o], `#include "`+filepath.Base(s)+`"`) {
					included = true
				}
			}
			if !included {
				keep = append(keep, s)
				if mainRE.MatchString(texts[s]) {
					mains = append(mains, s)
				}
			}
		}
		rel, _ := filepath.Rel(root, dir)
		incs := realIncludes(root, dir)
		if len(mains) > 1 {
			for _, m := range mains {
				progs = append(progs, realProgram{rel + "/" + filepath.Base(m), []string{m}, incs, size[m]})
			}
		} else if len(keep) > 0 {
			var n int64
			for _, s := range keep {
				n += size[s]
			}
			progs = append(progs, realProgram{rel, keep, incs, n})
		}
		return nil
	})
	return progs, err
}

// realIncludes is the program's folder and every Common folder beside it or
// beside one of its parents up to root (NVIDIA's samples keep their
// helpers in Common).
func realIncludes(root, dir string) []string {
	incs := []string{dir}
	for d := dir; strings.HasPrefix(d, root); d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "Common")); err == nil && st.IsDir() {
			incs = append(incs, filepath.Join(d, "Common"))
		}
		if d == root {
			break
		}
	}
	return incs
}

// realSubset applies WARPLINK_REALCODE_MATCH and WARPLINK_REALCODE_N.
func realSubset(t *testing.T, progs []realProgram) []realProgram {
	if m := os.Getenv("WARPLINK_REALCODE_MATCH"); m != "" {
		re, err := regexp.Compile(m)
		if err != nil {
			t.Fatalf("WARPLINK_REALCODE_MATCH: %v", err)
		}
		var keep []realProgram
		for _, p := range progs {
			if re.MatchString(p.name) {
				keep = append(keep, p)
			}
		}
		progs = keep
	}
	if n, err := strconv.Atoi(os.Getenv("WARPLINK_REALCODE_N")); err == nil && n > 0 && n < len(progs) {
		sub := make([]realProgram, n)
		for i := range sub {
			sub[i] = progs[i*len(progs)/n]
		}
		progs = sub
	}
	return progs
}

// run compiles the job's program into dir and makes its links.
func (j *realJob) run(dir, wlPATH string) {
	os.MkdirAll(dir, 0o755)
	objs, why := j.compile(dir)
	if why != "" {
		j.skipped = why
		return
	}
	lib := libdir
	if d := os.Getenv("WARPLINK_REALCODE_CUDALIB"); d != "" {
		lib = d // (another toolkit's libcudadevrt.a: make realcode REALCODE_CUDA=)
	}
	libs := []string{"-L" + lib, "-lcudadevrt"}
	direct := []string{"-arch=" + j.arch}
	if j.flag == "-G" {
		direct = append(direct, "-g")
	}
	direct = append(append(direct, objs...), libs...)
	kernels := sweepKernels(realObjCubins(objs, j.arch, dir))
	for _, kind := range realLinkKinds {
		var args []string
		switch kind {
		case "direct":
			args = direct
		case "kernels-used":
			if len(kernels) == 0 {
				continue
			}
			args = append([]string{"--kernels-used=" + kernels[0]}, direct...)
		case "preserve-relocs":
			args = append([]string{"--preserve-relocs"}, direct...)
		case "nvcc-dlink":
			if lib != libdir {
				// (Another toolkit's nvcc may not take nvlink from PATH:
				// /opt/cuda12's wrappers run it in a root of its own.)
				continue
			}
			j.results = append(j.results, j.dlink(dir, objs, wlPATH))
			continue
		}
		j.results = append(j.results, realDirect(kind, args, filepath.Join(dir, kind)))
	}
}

// compile runs nvcc -dc on each source; it returns the objects or why nvcc
// failed. With WARPLINK_REALCODE_CACHE set, the objects go to a folder of
// the program, architecture and flag under it (one cache per toolkit: the
// nvcc found on PATH names a level), and a later run links the objects
// found there without compiling again.
func (j *realJob) compile(dir string) ([]string, string) {
	if cache := os.Getenv("WARPLINK_REALCODE_CACHE"); cache != "" {
		nvcc, _ := exec.LookPath("nvcc")
		key := strings.NewReplacer("/", "_", ".", "_").Replace
		dir = filepath.Join(cache, key(nvcc), key(j.prog.name), j.arch+j.flag)
		if b, err := os.ReadFile(filepath.Join(dir, "skipped")); err == nil {
			return nil, string(b)
		}
		if objs, err := filepath.Glob(filepath.Join(dir, "*.o")); err == nil && len(objs) == len(j.prog.srcs) {
			return objs, ""
		}
		// Compiled beside it and renamed: an interrupted run leaves no
		// folder of partial objects.
		part := dir + ".part"
		os.RemoveAll(part)
		os.MkdirAll(part, 0o755)
		objs, why := j.compileIn(part)
		if why != "" {
			os.WriteFile(filepath.Join(part, "skipped"), []byte(why), 0o644)
		}
		if os.Rename(part, dir) != nil {
			return objs, why
		}
		for i := range objs {
			objs[i] = filepath.Join(dir, filepath.Base(objs[i]))
		}
		return objs, why
	}
	return j.compileIn(dir)
}

// compileIn runs nvcc -dc on each source, writing the objects into dir.
func (j *realJob) compileIn(dir string) ([]string, string) {
	var objs []string
	for i, src := range j.prog.srcs {
		obj := filepath.Join(dir, fmt.Sprintf("%02d_%s.o", i, strings.TrimSuffix(filepath.Base(src), ".cu")))
		args := []string{"-arch=" + j.arch, "-dc", "-o", obj, src}
		if j.flag != "" {
			args = append(args, j.flag)
		}
		for _, inc := range j.prog.incs {
			args = append(args, "-I"+inc)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		msg, err := exec.CommandContext(ctx, "nvcc", args...).CombinedOutput()
		cancel()
		if err != nil {
			return nil, fmt.Sprintf("nvcc %s: %v: %s", filepath.Base(src), err, realFirstError(string(msg)))
		}
		objs = append(objs, obj)
	}
	return objs, ""
}

// realFirstError is the first line of compiler output that says "error",
// or the first line.
func realFirstError(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "error") {
			return strings.TrimSpace(l)
		}
	}
	return firstLine(s)
}

// realDirect links args with nvlink and with warplink (diffNvlink) and
// classifies the outcome.
func realDirect(kind string, args []string, prefix string) realResult {
	ref, ours := prefix+".nv.cubin", prefix+".wl.cubin"
	nvRC, _, problem, err := diffNvlink(args, ref, ours)
	switch {
	case err != nil:
		return realResult{kind, realFailed, err.Error()}
	case problem == "" && nvRC == 0:
		return realResult{kind, realIdentical, ""}
	case problem == "":
		return realResult{kind, realFailedAlike, ""}
	case !strings.HasPrefix(problem, "output differs"):
		return realResult{kind, realFailed, problem}
	}
	a, _ := os.ReadFile(ref)
	b, _ := os.ReadFile(ours)
	return realCompare(kind, [][]byte{b}, [][]byte{a})
}

// realCompare classifies our cubins against nvlink's (same count and
// order): identical, equivalent or different, with every difference.
func realCompare(kind string, ours, ref [][]byte) realResult {
	if len(ours) != len(ref) {
		return realResult{kind, realDifferent, fmt.Sprintf("%d cubins embedded, nvlink's build %d", len(ours), len(ref))}
	}
	res := realResult{kind: kind, outcome: realIdentical}
	for i := range ours {
		rep, err := cmpelf.Compare(ours[i], ref[i])
		switch {
		case err != nil:
			return realResult{kind, realDifferent, err.Error()}
		case rep.Identical:
		case rep.Equivalent:
			res.outcome = max(res.outcome, realEquivalent)
		default:
			res.outcome = realDifferent
		}
		if rep != nil {
			res.detail += strings.Join(rep.Diffs, "\n")
		}
	}
	return res
}

// dlink runs nvcc -dlink on the objects twice, with the installed nvlink
// and with warplink first on PATH, and compares the objects nvcc writes,
// and when they differ the cubins embedded in them.
func (j *realJob) dlink(dir string, objs []string, wlPATH string) realResult {
	run := func(name string, env []string) ([]byte, string, error) {
		out := filepath.Join(dir, name+".dlink.o")
		args := []string{"-arch=" + j.arch, "-dlink", "-o", out}
		if j.flag == "-G" {
			args = append(args, "-G")
		}
		cmd := exec.Command("nvcc", append(args, objs...)...)
		cmd.Env = append(os.Environ(), env...)
		msg, err := cmd.CombinedOutput()
		b, _ := os.ReadFile(out)
		return b, string(bytes.ReplaceAll(msg, []byte(name+".dlink.o"), nil)), err
	}
	ref, refMsg, refErr := run("nv", nil)
	ours, ourMsg, ourErr := run("wl", []string{"PATH=" + wlPATH})
	const kind = "nvcc-dlink"
	switch {
	case refErr != nil && ourErr != nil && refMsg == ourMsg:
		return realResult{kind, realFailedAlike, ""}
	case (refErr != nil) != (ourErr != nil) || refMsg != ourMsg:
		return realResult{kind, realFailed, fmt.Sprintf("nvcc -dlink: warplink %v %q, nvlink %v %q", ourErr, firstLine(ourMsg), refErr, firstLine(refMsg))}
	case bytes.Equal(ref, ours):
		return realResult{kind, realIdentical, ""}
	}
	a, errA := embeddedCubins(ref)
	b, errB := embeddedCubins(ours)
	if errA != nil || errB != nil {
		return realResult{kind, realDifferent, fmt.Sprintf("objects differ; embedded cubins: %v, %v", errB, errA)}
	}
	return realCompare(kind, b, a)
}

// realObjCubins writes the cubins for arch embedded in the host objects
// into dir and returns their paths (for the names of their kernels).
func realObjCubins(objs []string, arch, dir string) []string {
	sm, _ := strconv.Atoi(strings.TrimPrefix(arch, "sm_"))
	var paths []string
	for i, o := range objs {
		b, err := os.ReadFile(o)
		if err != nil {
			continue
		}
		cubins, _ := embeddedCubins(b)
		for k, c := range cubins {
			f, err := elf.Parse(c)
			if err != nil || f.Header.SM() != sm {
				continue
			}
			p := filepath.Join(dir, fmt.Sprintf("obj%02d_%d.cubin", i, k))
			if os.WriteFile(p, c, 0o644) == nil {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// embeddedCubins returns the ELF members of the fatbinaries a host object
// embeds (__nv_relfatbin of nvcc -dc, .nv_fatbin of nvcc -dlink), in order.
func embeddedCubins(obj []byte) ([][]byte, error) {
	f, err := elf.Parse(obj)
	if err != nil {
		return nil, err
	}
	var cubins [][]byte
	for i := range f.Sections {
		s := &f.Sections[i]
		if name := f.SecName(i); (name != hostobj.RelFatbinSection && name != hostobj.FatbinSection) || s.Type == elf.SHTNobits {
			continue
		}
		cs, err := fatbin.Parse(s.Data())
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			for k := range c.Members {
				m := &c.Members[k]
				if m.Kind != fatbin.KindELF {
					continue
				}
				b, err := m.Contents()
				if err != nil {
					return nil, err
				}
				cubins = append(cubins, b)
			}
		}
	}
	return cubins, nil
}

// realSummary is what TestRealCode reports.
type realSummary struct {
	built   int      // variants nvcc built
	summary string   // the counts per variant and link kind
	details string   // one block per link that is not identical, and the skips
	bad     []string // one line per link that is not identical or alike
}

// realReport counts the outcomes per architecture, flag and link kind,
// groups the differences by kind (realDiffKind) with the first program
// showing each, and lists every link that is not identical.
func realReport(jobs []*realJob) realSummary {
	var s realSummary
	type key struct{ arch, flag, kind string }
	counts := map[key]*[realOutcomes]int{}
	var keys []key
	var total [realOutcomes]int
	skipped := map[string]int{}
	kinds := map[string][]string{} // difference kind -> links showing it
	type shown struct {
		size int64
		link string
	}
	example := map[string]shown{} // difference kind -> the smallest program's link showing it
	var details strings.Builder
	for _, j := range jobs {
		variant := fmt.Sprintf("%s %s %s", j.prog.name, j.arch, strings.TrimPrefix(j.flag, "-"))
		if j.skipped != "" {
			skipped[j.arch+" "+j.flag]++
			fmt.Fprintf(&details, "SKIPPED (build) %s: %s\n", variant, j.skipped)
			continue
		}
		s.built++
		for _, r := range j.results {
			k := key{j.arch, j.flag, r.kind}
			if counts[k] == nil {
				counts[k] = new([realOutcomes]int)
				keys = append(keys, k)
			}
			counts[k][r.outcome]++
			total[r.outcome]++
			if r.outcome == realIdentical || r.outcome == realFailedAlike {
				continue
			}
			link := variant + " " + r.kind
			fmt.Fprintf(&details, "%s %s\n", strings.ToUpper(realOutcomeNames[r.outcome]), link)
			for _, l := range strings.Split(r.detail, "\n") {
				fmt.Fprintf(&details, "    %s\n", l)
			}
			s.bad = append(s.bad, fmt.Sprintf("%s: %s: %s", link, realOutcomeNames[r.outcome], firstLine(r.detail)))
			seen := map[string]bool{}
			for _, l := range strings.Split(r.detail, "\n") {
				if dk := realDiffKind(l); dk != "" && !seen[dk] {
					seen[dk] = true
					kinds[dk] = append(kinds[dk], link)
					if e, ok := example[dk]; !ok || j.prog.size < e.size {
						example[dk] = shown{j.prog.size, link}
					}
				}
			}
		}
	}
	sort.Slice(keys, func(a, b int) bool {
		ka, kb := keys[a], keys[b]
		if ka.arch != kb.arch {
			return ka.arch < kb.arch
		}
		if ka.flag != kb.flag {
			return ka.flag < kb.flag
		}
		return ka.kind < kb.kind
	})
	var sum strings.Builder
	fmt.Fprintf(&sum, "%-6s %-9s %-16s %9s %10s %9s %6s %17s\n", "arch", "flag", "link", "identical", "equivalent", "different", "failed", "both-failed-alike")
	for _, k := range keys {
		c := counts[k]
		flag := k.flag
		if flag == "" {
			flag = "plain"
		}
		fmt.Fprintf(&sum, "%-6s %-9s %-16s %9d %10d %9d %6d %17d\n", k.arch, flag, k.kind, c[0], c[1], c[2], c[3], c[4])
	}
	fmt.Fprintf(&sum, "%-33s %9d %10d %9d %6d %17d\n", "all links", total[0], total[1], total[2], total[3], total[4])
	var sk []string
	for v, n := range skipped {
		sk = append(sk, fmt.Sprintf("%s: %d", strings.TrimSpace(v), n))
	}
	sort.Strings(sk)
	fmt.Fprintf(&sum, "variants built: %d; skipped (build): %s\n", s.built, strings.Join(sk, ", "))
	var dks []string
	for dk := range kinds {
		dks = append(dks, dk)
	}
	sort.Slice(dks, func(a, b int) bool {
		if len(kinds[dks[a]]) != len(kinds[dks[b]]) {
			return len(kinds[dks[a]]) > len(kinds[dks[b]])
		}
		return dks[a] < dks[b]
	})
	if len(dks) > 0 {
		sum.WriteString("difference kinds (links; the smallest program showing it):\n")
	}
	for _, dk := range dks {
		e := example[dk]
		fmt.Fprintf(&sum, "  %4d  %s\n        e.g. %s (%d bytes of source)\n", len(kinds[dk]), dk, e.link, e.size)
	}
	s.summary, s.details = sum.String(), details.String()
	return s
}

var (
	realMangledRE = regexp.MustCompile(`_Z[A-Za-z0-9_$.]+`)
	realNumberRE  = regexp.MustCompile(`0x[0-9a-fA-F]+|\b[0-9]+\b`)
)

// realDiffKind reduces one difference line to its kind: mangled names
// become SYM and numbers N, so the same difference in other functions
// groups together. Lines that say nothing (empty) have no kind.
func realDiffKind(line string) string {
	line = strings.TrimSpace(line)
	if line == "" {
		return ""
	}
	line = realMangledRE.ReplaceAllString(line, "SYM")
	line = realNumberRE.ReplaceAllString(line, "N")
	if len(line) > 160 {
		line = line[:160] + "..."
	}
	return line
}
