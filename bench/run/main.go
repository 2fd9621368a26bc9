// Command run benchmarks warplink against nvlink on generated workloads of
// growing size (see package bench/gen) and prints the results as text
// tables, and as Markdown with -md.
//
//	go run ./bench/run [-sizes 1000,2000,4000,10000] [-large] [-seed 1]
//	    [-cache DIR] [-nvlink PATH] [-nvlink-max 20000] [-timeout 120s]
//	    [-warplink PATH] [-procs 1,2,4] [-runs 3] [-min-time 1s] [-rounds 3]
//	    [-md FILE] [-forms 10000]
//	go run ./bench/run -gen DIR -n N [-seed 1]
//
// For each size it generates the workload once (cached under -cache),
// times reading every input (the I/O floor: in parallel, the fastest of
// three), then links it with nvlink (when found and the size is at most
// -nvlink-max) and with warplink, recording wall time (the fastest
// link's) and peak RSS (the median link's). Then it measures warplink
// again at every size, -rounds times in all, and keeps the fastest link
// and the median RSS over every round, and checks that each round's
// output is byte-identical to the first's: a slow spell of the machine
// (a few seconds in which every process runs slower) then has to cover
// the same size in every round to show in its figures. At the
// largest size it also runs warplink under each GOMAXPROCS of -procs and
// reports the median time of each pass (--time) under each, with the
// pass's speedup from the fewest cores to the most: a pass that does not
// speed up is serial. Last, the sizes of -forms are linked again as nvcc
// -dc host objects and as one archive of them (see forms.go).
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warplink/warplink/bench/gen"
	"github.com/warplink/warplink/internal/testkit/gobuild"
)

// genVersion names the generator's output format in cache directory names;
// bump it when gen changes its bytes.
const genVersion = 1

type config struct {
	sizes     []int
	seed      uint64
	cache     string
	corpus    string
	nvlink    string
	nvlinkMax int
	timeout   time.Duration
	warplink  string
	procs     []int
	runs      int
	minTime   time.Duration
	rounds    int
	md        string
	forms     []int // sizes also linked as host objects and as an archive
	small     []int // sizes linked by nvlink and warplink in turn (small.go)
	smallRuns int
	nvcc      string // nvcc for the nvcc -dlink table (nvcc.go)
	nvccSizes []int
	nvccRuns  int
	launch    *launchers // start the measured links (nil: the benchmark itself)
}

func main() {
	closeInherited() // (links start as a build tool would start them)
	if os.Getenv(launcherEnv) == "1" {
		if err := serveLaunches(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench launcher:", err)
			os.Exit(1)
		}
		return
	}
	var c config
	sizes := flag.String("sizes", "1000,2000,4000,10000", "comma-separated object counts")
	large := flag.Bool("large", false, "also run 20000, 50000 and 100000 objects")
	flag.Uint64Var(&c.seed, "seed", 1, "workload seed")
	flag.StringVar(&c.cache, "cache", filepath.Join(os.TempDir(), "warplink-bench"), "directory for generated workloads, binaries and outputs")
	flag.StringVar(&c.corpus, "corpus", gen.DefaultCorpus, "template cubin directory")
	flag.StringVar(&c.nvlink, "nvlink", "nvlink", "nvlink to compare with (skipped when not found)")
	flag.IntVar(&c.nvlinkMax, "nvlink-max", 20000, "largest size nvlink is run on")
	flag.DurationVar(&c.timeout, "timeout", 120*time.Second, "time limit of one link")
	flag.StringVar(&c.warplink, "warplink", "", "warplink binary (default: go build ./cmd/warplink)")
	procs := flag.String("procs", "", "GOMAXPROCS values for the scaling run (default 1,2,4,... up to the CPU count)")
	flag.IntVar(&c.runs, "runs", 3, "links per measurement at least; the fastest is reported (a first link after another process's often finds its memory cold)")
	flag.DurationVar(&c.minTime, "min-time", time.Second, "links per measurement: more than -runs while they add up to less than this (at most 20)")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds of warplink links over all sizes; the first beside nvlink's")
	flag.StringVar(&c.md, "md", "", "also write the tables as Markdown to this file (- for stdout)")
	small := flag.String("small", "1,3,10,30,100", "comma-separated object counts linked by nvlink and warplink in turn (\"\": none)")
	flag.IntVar(&c.smallRuns, "small-runs", 21, "links of each linker at each -small size")
	flag.StringVar(&c.nvcc, "nvcc", "nvcc", "nvcc for the nvcc -dlink table (skipped when not found)")
	nvccSizes := flag.String("nvcc-sizes", "1,10,100,1000", "comma-separated host-object counts linked by nvcc -dlink (\"\": none)")
	flag.IntVar(&c.nvccRuns, "nvcc-runs", 21, "nvcc -dlink runs with each linker at each -nvcc-sizes size")
	forms := flag.String("forms", "10000", "comma-separated object counts also linked as host objects and as one archive of them (\"\": none)")
	genDir := flag.String("gen", "", "only generate a workload of -n objects into this directory")
	n := flag.Int("n", 1000, "object count for -gen")
	flag.Parse()

	if *genDir != "" {
		if err := generateOnly(c, *genDir, *n); err != nil {
			fatal(err)
		}
		return
	}
	var err error
	if c.sizes, err = parseInts(*sizes); err != nil {
		fatal(fmt.Errorf("-sizes: %v", err))
	}
	if *large {
		c.sizes = append(c.sizes, 20000, 50000, 100000)
	}
	for _, l := range []struct {
		name string
		s    string
		to   *[]int
	}{{"-forms", *forms, &c.forms}, {"-small", *small, &c.small}, {"-nvcc-sizes", *nvccSizes, &c.nvccSizes}} {
		if strings.TrimSpace(l.s) != "" {
			if *l.to, err = parseInts(l.s); err != nil {
				fatal(fmt.Errorf("%s: %v", l.name, err))
			}
		}
	}
	if *procs == "" {
		for p := 1; p <= runtime.NumCPU(); p *= 2 {
			c.procs = append(c.procs, p)
		}
		if last := c.procs[len(c.procs)-1]; last != runtime.NumCPU() {
			c.procs = append(c.procs, runtime.NumCPU())
		}
	} else if c.procs, err = parseInts(*procs); err != nil {
		fatal(fmt.Errorf("-procs: %v", err))
	}
	c.runs, c.rounds, c.smallRuns, c.nvccRuns = max(c.runs, 1), max(c.rounds, 1), max(c.smallRuns, 1), max(c.nvccRuns, 1)
	raiseStackLimit()
	c.launch = &launchers{}
	rep, err := bench(c, os.Stderr)
	if err == nil {
		rep.notes = append(rep.notes, c.launch.note())
	}
	if err != nil {
		fatal(err)
	}
	rep.text(os.Stdout)
	if c.md != "" {
		var b bytes.Buffer
		rep.markdown(&b)
		if c.md == "-" {
			os.Stdout.Write(b.Bytes())
		} else if err := os.WriteFile(c.md, b.Bytes(), 0o644); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.New("empty list")
	}
	return out, nil
}

func generateOnly(c config, dir string, n int) error {
	t, err := gen.LoadTemplates(c.corpus)
	if err != nil {
		return err
	}
	names, size, err := t.WriteDir(dir, gen.Config{N: n, Seed: c.seed})
	if err != nil {
		return err
	}
	fmt.Printf("%d objects, %.1f MB in %s\nlink: nvlink -arch=%s -o out.cubin %s ... %s\n",
		len(names), float64(size)/1e6, dir, gen.Arch, names[0], names[len(names)-1])
	return nil
}

// workload is a generated link, ready to run.
type workload struct {
	n     int
	dir   string
	names []string
	bytes int64
}

// prepare returns the cached workload of n objects, generating it first when
// the cache lacks it. The manifest is written last, so an interrupted
// generation is redone.
func prepare(c config, t **gen.Templates, n int) (*workload, error) {
	dir := filepath.Join(c.cache, fmt.Sprintf("n%d-s%d-g%d", n, c.seed, genVersion))
	w := &workload{n: n, dir: dir}
	if w.cached() && len(w.names) == n {
		return w, nil
	}
	if *t == nil {
		var err error
		if *t, err = gen.LoadTemplates(c.corpus); err != nil {
			return nil, err
		}
	}
	os.RemoveAll(dir)
	var err error
	if w.names, w.bytes, err = (*t).WriteDir(dir, gen.Config{N: n, Seed: c.seed}); err != nil {
		return nil, err
	}
	return w, w.writeManifest()
}

// writeManifest records w's size and inputs in its folder, last: a folder
// without one is generated again.
func (w *workload) writeManifest() error {
	body := strconv.FormatInt(w.bytes, 10) + "\n" + strings.Join(w.names, "\n") + "\n"
	return os.WriteFile(filepath.Join(w.dir, "manifest"), []byte(body), 0o644)
}

// cached fills w's inputs and size from its folder's manifest, and
// reports whether there was one.
func (w *workload) cached() bool {
	b, err := os.ReadFile(filepath.Join(w.dir, "manifest"))
	if err != nil {
		return false
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	size, err := strconv.ParseInt(lines[0], 10, 64)
	if err != nil || len(lines) < 2 {
		return false
	}
	w.bytes, w.names = size, lines[1:]
	return true
}

// ioFloor is the least time to read every input once with plain system
// calls (open, read, close) from one goroutine per CPU, as many as the
// link gets: the fastest of ioFloorRuns reads. The page cache is not
// dropped, so this is the floor of a warm link. (One sequential read, as
// before, took longer than a 10,000-object link: 0.18-0.40 s against
// 0.18-0.20.)
func ioFloor(w *workload) (time.Duration, error) {
	workers := min(runtime.NumCPU(), len(w.names))
	var best time.Duration
	for run := range ioFloorRuns {
		var next atomic.Int64
		errs := make([]error, workers)
		var wg sync.WaitGroup
		start := time.Now()
		for k := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 1<<20)
				for {
					i := int(next.Add(1)) - 1
					if i >= len(w.names) || errs[k] != nil {
						return
					}
					errs[k] = readAll(filepath.Join(w.dir, w.names[i]), buf)
				}
			}()
		}
		wg.Wait()
		d := time.Since(start)
		if err := errors.Join(errs...); err != nil {
			return 0, err
		}
		if run == 0 || d < best {
			best = d
		}
	}
	return best, nil
}

// ioFloorRuns is how many reads ioFloor keeps the fastest of, and writes
// writeFloor.
const ioFloorRuns = 3

// writeFloor is the least time to write a file of size bytes once into
// dir, as a link writes its output (create, 1 MiB writes, close): the
// fastest of ioFloorRuns writes. With ioFloor's read, the floor of a link.
func writeFloor(dir string, size int64) (time.Duration, error) {
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i) // (not zeros: no file system may skip them)
	}
	path := filepath.Join(dir, "write-floor.tmp")
	defer os.Remove(path)
	var best time.Duration
	for run := range ioFloorRuns {
		os.Remove(path)
		start := time.Now()
		f, err := os.Create(path)
		if err != nil {
			return 0, err
		}
		for left := size; left > 0 && err == nil; left -= int64(len(buf)) {
			_, err = f.Write(buf[:min(left, int64(len(buf)))])
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return 0, err
		}
		if d := time.Since(start); run == 0 || d < best {
			best = d
		}
	}
	return best, nil
}

// readAll reads the file at path to its end through buf.
func readAll(path string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyBuffer(io.Discard, struct{ io.Reader }{f}, buf)
	return err
}

// result is one measured link.
type result struct {
	ran     bool
	err     string // "" on exit status 0, else what went wrong
	wall    time.Duration
	cpu     time.Duration   // user + system
	maxRSS  int64           // peak RSS in bytes: of one link, then the median of a measurement's (see link)
	walls   []time.Duration // every link's wall time, in the order made
	rsses   []int64         // every successful link's peak RSS
	rounds  []time.Duration // the fastest link of each round (see addRound)
	out     string
	timeCSV string
	runs    int // links made for this result (the fastest is kept)
}

// maxRuns bounds the links of one measurement that -min-time adds.
const maxRuns = 20

// another reports whether a measurement that has made n links, taking
// total, makes one more: up to -runs, then while they take less than
// -min-time, up to maxRuns.
func (c config) another(n int, total time.Duration) bool {
	return n < c.runs || total < c.minTime && n < maxRuns
}

// link runs bin on the workload c.runs times, and more while the links add
// up to less than c.minTime (at most maxRuns), and keeps the fastest run,
// with the median of the links' peak RSS. On the measurement VM a 30 ms
// link varies by 20-50 % from run to run (memory the host has to back
// again, thread wake-ups); a measurement that takes seconds varies by a
// few percent. A link's peak RSS varies too (warplink at 4,000 objects:
// 53-58 MB, with where the heap and its huge pages fall), so the fastest
// link's alone would be a draw. Both linkers are measured alike.
func link(c config, bin string, w *workload, out string, env []string, extra ...string) result {
	var best result
	var total time.Duration
	var walls []time.Duration
	var rss []int64
	n := 0
	l := c.launch.start()
	defer c.launch.done(l, w.n)
	for c.another(n, total) {
		r := linkOnce(c, l, bin, w, out, env, extra...)
		total += r.wall
		if n == 0 || r.err == "" && (best.err != "" || r.wall < best.wall) {
			best = r
		}
		n++
		walls = append(walls, r.wall)
		if r.err != "" {
			break
		}
		rss = append(rss, r.maxRSS)
	}
	best.runs, best.walls, best.rsses = n, walls, rss
	if best.err == "" {
		best.maxRSS = median(slices.Clone(rss))
		best.rounds = []time.Duration{best.wall}
	}
	return best
}

// addRound folds another round's measurement of the same link into r: the
// fastest link of all (with its CPU time), the median peak RSS of all, a
// failure if either failed.
func (r *result) addRound(o result) {
	if !o.ran {
		return
	}
	r.ran = true
	r.runs += o.runs
	r.walls = append(r.walls, o.walls...)
	r.rsses = append(r.rsses, o.rsses...)
	if o.err != "" {
		if r.err == "" {
			r.err = o.err
		}
		return
	}
	r.rounds = append(r.rounds, o.wall)
	if r.err == "" && o.wall < r.wall {
		r.wall, r.cpu = o.wall, o.cpu
	}
	r.maxRSS = median(slices.Clone(r.rsses))
}

// medianWall is the median wall time of all of r's links.
func (r result) medianWall() time.Duration {
	return median(slices.Clone(r.walls))
}

// median returns the median of vs (the upper one of an even count; zero
// for none). It sorts vs.
func median[T cmp.Ordered](vs []T) T {
	if len(vs) == 0 {
		var zero T
		return zero
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// linkOnce runs one link, through l unless it is nil.
func linkOnce(c config, l *launcher, bin string, w *workload, out string, env []string, extra ...string) result {
	args := append([]string{"-arch=" + gen.Arch, "-o", out}, extra...)
	args = append(args, w.names...)
	os.Remove(out)
	req := launchRequest{Dir: w.dir, Bin: bin, Args: args, Env: env, Timeout: c.timeout}
	var res launchResult
	if l != nil {
		var err error
		if res, err = l.run(req); err != nil {
			return result{ran: true, err: err.Error(), out: out}
		}
	} else {
		res = launch(req, os.Environ())
	}
	r := result{ran: true, wall: res.Wall, out: out, maxRSS: res.MaxRSS, cpu: res.CPU}
	switch {
	case res.TimedOut:
		r.err = fmt.Sprintf("timeout (%v)", c.timeout)
	case res.Err != "":
		msg := strings.TrimSpace(res.Output)
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		r.err = fmt.Sprintf("%v: %s", res.Err, msg)
	}
	return r
}

// compare runs "warplink cmp OURS REF": exit 0 means identical, 1
// equivalent, 2 different (detail is then the first lines of its report),
// 3 a file cmp could not read (detail says why); anything else, such as a
// warplink without cmp, is n/a.
func compare(warplink, ours, ref string) (verdict, detail string) {
	out, err := exec.Command(warplink, "cmp", ours, ref).Output()
	if err == nil {
		return "identical", ""
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		switch ee.ExitCode() {
		case 1:
			return "equivalent", ""
		case 2:
			lines := strings.SplitN(strings.TrimSpace(string(out)), "\n", 4)
			return "DIFFERENT", strings.Join(lines[:min(3, len(lines))], "; ")
		case 3:
			return "cmp error", firstLine(strings.TrimSpace(string(ee.Stderr)))
		}
	}
	return "n/a", ""
}

// phase is one row of warplink's --time CSV (nvlink's columns: the phase
// name second, the time in ms seventh).
type phase struct {
	pass    string
	seconds float64
}

// parsePhases reads pass,seconds rows, skipping a header and blank lines;
// --time appends a header and rows per run, so a pass's time is its median
// over the runs (the upper one of an even count). It reports false when
// some row is not in that format.
func parsePhases(csv string) ([]phase, bool) {
	runs, ok := parsePhaseRuns(csv)
	if !ok {
		return nil, false
	}
	out := slices.Clone(runs[len(runs)-1])
	for i := range out {
		var vs []float64
		for _, run := range runs {
			for _, p := range run {
				if p.pass == out[i].pass {
					vs = append(vs, p.seconds)
					break
				}
			}
		}
		out[i].seconds = median(vs)
	}
	return out, true
}

// parsePhaseRuns reads the rows of each run that --time appended (a
// header, or a pass the run has had, starts a run); it reports false when some row is not pass,seconds
// nor nvlink's --time columns, or there is none.
func parsePhaseRuns(csv string) ([][]phase, bool) {
	var runs [][]phase
	var cur []phase
	sc := bufio.NewScanner(strings.NewReader(csv))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		name, val, scale := "", "", 1.0
		switch len(f) {
		case 2: // pass,seconds
			name, val = f[0], f[1]
		case 8: // nvlink's --time columns, time in ms
			if strings.TrimSpace(f[0]) != "" {
				continue // (a compile's row, ptx or lto.*: no pass)
			}
			name, val, scale = f[1], f[6], 1e-3
		default:
			return nil, false
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			if len(cur) == 0 || strings.TrimSpace(name) == "phase name" {
				if len(cur) > 0 {
					runs = append(runs, cur)
				}
				cur = nil // a header: a new run starts
				continue
			}
			return nil, false
		}
		name = strings.TrimSpace(name)
		if slices.ContainsFunc(cur, func(p phase) bool { return p.pass == name }) {
			// (A pass again: the next run, appended without a header
			// as nvlink appends to a file that is not empty.)
			runs, cur = append(runs, cur), nil
		}
		cur = append(cur, phase{name, v * scale})
	}
	if len(cur) > 0 {
		runs = append(runs, cur)
	}
	return runs, len(runs) > 0
}

// buildWarplink compiles ./cmd/warplink into the cache directory, as
// make build does (CGO_ENABLED=0, GOEXPERIMENT=nogreenteagc), and
// installs it there by copying, as make install does. The copy is what
// a user runs, and it starts faster than the linker's own file: on
// Linux 6.x the Go linker writes its output through a mapping, which
// leaves the file in the page cache in 4 KiB folios, where a file
// written with write (cp, install, a package manager) sits in large
// ones, and every exec then maps the binary's pages in fewer, cheaper
// faults (a one-object link 0.1-0.2 ms faster, a tenth of it; the same
// page-fault count).
func buildWarplink(cache string) (string, error) {
	bin := filepath.Join(cache, "warplink")
	built := bin + ".build"
	// (By import path, so that it builds from any folder of the module:
	// the tests run in bench/run.)
	cmd := exec.Command("go", "build", "-o", built, "github.com/warplink/warplink/cmd/warplink")
	cmd.Env = gobuild.Env("go") // (as make build: see the Makefile)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/warplink: %v: %s", err, firstLine(strings.TrimSpace(string(out))))
	}
	defer os.Remove(built)
	return bin, copyExecutable(built, bin)
}

// copyExecutable writes a copy of the executable src to dst (replaced,
// not rewritten in place: a running dst keeps its file).
func copyExecutable(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
