package e2e

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/jit"
)

// jitDir holds the PTX JIT and LTO corpus and nvlink 11.8's records of it
// (testdata/jit/record.sh).
const jitDir = "../../testdata/jit"

// jitCase is one recorded link of jitDir/cases.txt.
type jitCase struct {
	name, group string // "xcall/lto.sm_80", "lto"
	rc          int
	sum         string // sha256 of the output, "-" for none, "a,b" for either, "*" for any
	args        []string
	log         string
	reg         string // the --register-link-binaries file ("" if none)
}

// readJITCases reads dir's cases.txt and logs.txt.
func readJITCases(t *testing.T, dir string) []jitCase {
	b, err := os.ReadFile(filepath.Join(dir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := os.ReadFile(filepath.Join(dir, "logs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	logs := map[string]string{}
	blocks := strings.Split("\n"+string(lb), "\n== ")[1:]
	for i, blk := range blocks {
		name, text, _ := strings.Cut(blk, "\n")
		if i < len(blocks)-1 {
			text += "\n" // (the newline before the next header is the block's)
		}
		logs[name] = text
	}
	var cases []jitCase
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		f := strings.Split(line, "\t")
		rc, _ := strconv.Atoi(f[1])
		_, rest, _ := strings.Cut(f[0], "/")
		group, _, _ := strings.Cut(rest, ".")
		log, reg := logs[f[0]], logs[f[0]+".file"]
		cases = append(cases, jitCase{name: f[0], group: group, rc: rc, sum: f[2], args: f[3:], log: log, reg: reg})
	}
	return cases
}

// jitKnown are the recorded links where warplink deliberately differs from
// nvlink 11.8, with the reason.
func jitKnown() map[string]string {
	return map[string]string{
		// nvlink loads only <nvvmpath>/lib64/libnvvm.so; warplink then
		// falls back to where toolkits install libnvvm (and links).
		"xcall/err.nvvm-nolib": "libnvvm found past -nvvmpath",
	}
}

// jitNamed are the recorded failures where nvlink's message names no
// input and warplink prints a line naming it first: the same exit status
// and output, the log ending in nvlink's.
func jitNamed() map[string]bool {
	return map[string]bool{"xcall/err.nvvm-badmagic": true}
}

// buildJITTools returns the built warplink as "nvlink" and warplink-nvvm
// beside it (warplinkBin).
func buildJITTools(t *testing.T) (nvlink, helper string) {
	dir := warplinkBin(t)
	return filepath.Join(dir, "nvlink"), filepath.Join(dir, "warplink-nvvm")
}

// jitOutcome is what TestJITLTO found of one recorded link.
type jitOutcome int

const (
	jitSkipped    jitOutcome = iota // an LTO link without libnvvm
	jitFailed                       // reported by its subtest
	jitKnownDiff                    // a difference jitKnown explains
	jitEquivalent                   // as nvlink but where nvlink's output cannot be had (noOutput, '*')
	jitPassed                       // as nvlink
)

// TestJITLTO replays nvlink 11.8's PTX JIT and LTO links of testdata/jit:
// the same exit status, messages and output bytes. It needs ptxas (the
// LTO links also libnvvm) and skips what it cannot run. The -G objects of
// debug/ name their sources by the recording machine's absolute paths;
// ptxas -g reads a source that exists into the debug information, so the
// records are those of a machine where the paths do not exist (any other;
// ptxascache keys its results by ptxas, arguments and PTX only, so
// WARPLINK_TEST_PTXAS_CACHE=off where such a path appears).
// The links run in parallel, each with its own output files.
func TestJITLTO(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	ptxas, err := jit.FindPTXAS(os.Getenv("WARPLINK_PTXAS"), "")
	if err != nil {
		t.Skip("no ptxas:", err)
	}
	if rel, _ := jit.PTXASRelease(ptxas); rel != jit.Release {
		t.Skipf("ptxas %s is release %q: the records are nvlink %s's, whose output needs ptxas %s", ptxas, rel, jit.Release, jit.Release)
	}
	nvlink, helper := buildJITTools(t)
	lib, err := exec.Command(helper, "-check", "").Output()
	r := &jitReplay{dir: jitDir, libdir: libdir, release: jit.Release, nvlink: nvlink, helper: helper,
		ptxas: ptxas, known: jitKnown(), named: jitNamed()}
	if err == nil {
		p := strings.TrimSpace(string(lib))
		if !filepath.IsAbs(p) {
			p = findLoaderLib(p)
		}
		r.nvvm = nvvmPathFor(t, p)
	} else {
		t.Log("no libnvvm: LTO links skipped")
	}
	r.run(t)
}

// jitReplay is a replay of recorded PTX JIT and LTO links: the records
// of dir (cases.txt, logs.txt) made by nvlink of release, with the inputs'
// libcudadevrt.a in libdir, replayed by the warplink at nvlink with its
// helper, nvvm as the -nvvmpath ("": no libnvvm, the LTO links skipped)
// and ptxas ("": found as warplink finds it; else run through
// ptxascache, whose results are ptxas's: ptxasCacheDir). known are the links where
// warplink deliberately differs, with the reason; named those where its
// log ends in nvlink's after a line of its own naming the input.
type jitReplay struct {
	dir, libdir, release, nvlink, helper, nvvm, ptxas string
	known                                             map[string]string
	named                                             map[string]bool
	// noOutput, when not nil, says why nvlink's output of c is not
	// wanted ("" when it is): the link is to fail as nvlink, in its
	// words, but leave no output file where nvlink leaves one.
	noOutput func(c jitCase) string
}

// ptxasCacheDir is where the replays keep ptxas's results
// (internal/testkit/ptxascache): WARPLINK_TEST_PTXAS_CACHE, by default
// warplink-test/ptxas in the user's cache folder; "off" (or no such
// folder): none, every compile runs ptxas.
func ptxasCacheDir() string {
	switch d := os.Getenv("WARPLINK_TEST_PTXAS_CACHE"); d {
	case "off":
		return ""
	case "":
		c, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(c, "warplink-test", "ptxas")
	default:
		return d
	}
}

// nvvmPathFor makes an -nvvmpath as nvlink wants it (<p>/lib64/libnvvm.so)
// for the libnvvm at lib.
func nvvmPathFor(t *testing.T, lib string) string {
	nvvm := t.TempDir()
	os.MkdirAll(filepath.Join(nvvm, "lib64"), 0o755)
	if err := os.Symlink(lib, filepath.Join(nvvm, "lib64", "libnvvm.so")); err != nil {
		t.Fatal(err)
	}
	return nvvm
}

// run replays every recorded link, in parallel, each with its own
// output files, and logs the counts per group.
func (r *jitReplay) run(t *testing.T) {
	cases := readJITCases(t, r.dir)
	outcomes := make([]jitOutcome, len(cases))
	tmp := t.TempDir() // the links' output files, named by case (one folder: creating folders costs)
	t.Run("links", func(t *testing.T) {
		for k, c := range cases {
			lto := slices.ContainsFunc(c.args, func(a string) bool { return a == "-dlto" || strings.HasPrefix(a, "-nvvmpath") })
			if lto && r.nvvm == "" {
				continue // (jitSkipped)
			}
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(tmp, strconv.Itoa(k))
				outcomes[k] = r.link(t, c, out+".cubin", out+".reg.c")
			})
		}
	})
	type count struct{ pass, equiv, known, total, skipped int }
	counts := map[string]*count{}
	var groups []string
	for k, c := range cases {
		if counts[c.group] == nil {
			counts[c.group] = &count{}
			groups = append(groups, c.group)
		}
		n := counts[c.group]
		switch outcomes[k] {
		case jitSkipped:
			n.skipped++
			continue
		case jitPassed:
			n.pass++
		case jitEquivalent:
			n.equiv++
		case jitKnownDiff:
			n.known++
		}
		n.total++
	}
	for _, g := range groups {
		n := counts[g]
		t.Logf("%-10s %3d of %3d links as nvlink %s, %d equivalent, %d deliberately different (%d skipped)", g, n.pass, n.total, r.release, n.equiv, n.known, n.skipped)
	}
}

// link makes the recorded link c (in c's program folder, with output
// file out and register file reg of its own) and compares exit status,
// messages, output and register file with nvlink's.
func (r *jitReplay) link(t *testing.T, c jitCase, out, reg string) jitOutcome {
	args := make([]string, len(c.args))
	for i, a := range c.args {
		a = strings.ReplaceAll(a, "@LIBDIR@", r.libdir)
		a = strings.ReplaceAll(a, "@NVVM@", r.nvvm)
		args[i] = strings.ReplaceAll(a, "@OUT@", out)
		if strings.HasPrefix(a, "--register-link-binaries=") {
			args[i] = "--register-link-binaries=" + reg
		}
	}
	cmd := exec.Command(r.nvlink, args...)
	cmd.Dir = filepath.Join(r.dir, strings.Split(c.name, "/")[0])
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.Env = append(os.Environ(), "WARPLINK_NVVM_HELPER="+r.helper)
	if r.ptxas != "" {
		cmd.Env = append(cmd.Env, "WARPLINK_PTXAS="+r.ptxas)
		if dir := ptxasCacheDir(); dir != "" {
			cmd.Env = append(cmd.Env, "WARPLINK_PTXAS="+filepath.Join(filepath.Dir(r.nvlink), "ptxascache"),
				"PTXASCACHE_REAL="+r.ptxas, "PTXASCACHE_DIR="+dir)
		}
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", c.name, err)
	}
	nvvm := r.nvvm
	if nvvm == "" {
		nvvm = "@NVVM@"
	}
	log := strings.ReplaceAll(strings.ReplaceAll(stderr.String(), nvvm, "@NVVM@"), out, "@OUT@")
	sum := "-"
	if b, err := os.ReadFile(out); err == nil {
		h := sha256.Sum256(b)
		sum = fmt.Sprintf("%x", h)
	}
	rc := cmd.ProcessState.ExitCode()
	regText, _ := os.ReadFile(reg)
	switch known, named := r.known, r.named; {
	case rc == c.rc && sum == c.sum && log == c.log && string(regText) == c.reg:
		return jitPassed
	case strings.Contains(c.sum, ",") && slices.Contains(strings.Split(c.sum, ","), sum) && rc == c.rc && log == c.log && string(regText) == c.reg:
		t.Logf("%s: as nvlink, the output one of the %d it gives from run to run", c.name, strings.Count(c.sum, ",")+1)
		return jitPassed
	case c.sum == "*" && rc == c.rc && sum != "-" && log == c.log && string(regText) == c.reg:
		t.Logf("%s: as nvlink but for the output, which varies from one nvlink run to the next", c.name)
		return jitEquivalent
	case r.noOutput != nil && r.noOutput(c) != "" && rc == c.rc && rc != 0 && sum == "-" && log == c.log && string(regText) == c.reg:
		t.Logf("%s: as nvlink but no output file: %s", c.name, r.noOutput(c))
		return jitEquivalent
	case named[c.name] && rc == c.rc && sum == c.sum && strings.HasSuffix(log, c.log) && len(log) > len(c.log):
		t.Logf("%s: as nvlink, the input named first: %q", c.name, strings.TrimSuffix(log, c.log))
		return jitPassed
	case known[c.name] != "":
		t.Logf("%s: known difference: %s", c.name, known[c.name])
		return jitKnownDiff
	}
	t.Errorf("%s: exit %d, want %d; output %s, want %s\n got log:\n%s want log:\n%s got register file:\n%s want:\n%s", c.name, rc, c.rc, sum[:min(12, len(sum))], c.sum[:min(12, len(c.sum))], log, c.log, regText, c.reg)
	return jitFailed
}

// findLoaderLib finds the file the system loader would open for name.
func findLoaderLib(name string) string {
	out, _ := exec.Command("/sbin/ldconfig", "-p").Output()
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == name {
			return f[len(f)-1]
		}
	}
	return name
}
