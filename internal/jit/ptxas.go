// Package jit compiles what a device link cannot take as it is: PTX
// (nvlink's embedded ptxas, here the toolkit's standalone ptxas) and, for
// -dlto, NVVM IR (libnvvm). The outputs are byte-identical to nvlink
// 11.8's or 12.5's own compiles when the tools are those of the same
// release (release.go).
package jit

import (
	"bytes"
	"errors"
	"fmt"
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

	"github.com/warplink/warplink/internal/input"
)

// Release is the CUDA release of the nvlink whose compiles warplink
// emulates when neither --nvlink-version nor the ptxas it finds names
// another (release.go): testdata/jit's records are its nvlink's.
const Release = "11.8"

// Options is what the command line says about compiling.
type Options struct {
	Arch        int      // target SM (sm_<Arch>)
	MaxRegCount int64    // -maxrregcount (0: not given)
	Debug       bool     // -g and no -suppress-debug-info
	Xptxas      []string // -Xptxas, split on white space
	NVVMPath    string   // -nvvmpath ("" if not given)
	// Release is the nvlink release --nvlink-version names (125; 0: the
	// ptxas's decides, rulesFor).
	Release int
	// Xnvvm is nvlink 12.x's -Xnvvm (as given, comma lists split);
	// SplitCompile and SplitCompileExtended its -split-compile and
	// -split-compile-extended, in decimal, "" for the default (1, which
	// nvlink does not pass on; any other value, 0 too, it does).
	Xnvvm                              []string
	SplitCompile, SplitCompileExtended string
	// Inputs and LibDirs are the link's inputs ("-l<name>" too) and -L
	// folders.
	Inputs, LibDirs []string
	// PTXAS is the ptxas to run; "" finds one (FindPTXAS).
	PTXAS string
	// NoZygote runs every ptxas as a process of its own (no zygote:
	// zygote_linux_amd64.go).
	NoZygote bool
}

// Compiler runs ptxas for one link (input.Compiler). ptxas is looked up
// when first needed, so a link without PTX costs nothing; compiles run in
// parallel, at most one per CPU, ahead of the read pass (ahead.go).
type Compiler struct {
	opts   Options
	once   sync.Once
	path   string // ptxas found ("" with err)
	err    error
	warn   string      // the release warning, if any
	warned atomic.Bool // Warning has returned warn
	sem    chan struct{}
	// zyg forks the compiles' ptxas processes (nil: none).
	zyg *zygote
	// lto is the LTO step's result in a -dlto link (nil: none).
	lto *Result
	mu  sync.Mutex
	ran []ptxRun // the compiles, in the order they ended
	// jobs are the compiles by content, aheadOnce starts those ahead
	// (ahead.go).
	jobs      jobs
	aheadOnce sync.Once
}

// ptxRun is one input's compile, for --time.
type ptxRun struct {
	name string
	file bool // a PTX text file (else a fatbinary member)
	took time.Duration
	ok   bool // ptxas succeeded
}

// SetLTO makes the link an LTO link whose LTO step gave r.
func (c *Compiler) SetLTO(r *Result) {
	c.lto = r
	if r.Warned {
		c.warned.Store(true) // (the same ptxas: the step said it)
	}
}

// IR implements input.Compiler.
func (c *Compiler) IR(name string) ([][]byte, []string, bool) {
	if c.lto == nil || c.lto.None {
		return nil, nil, false
	}
	if name == c.lto.Last {
		return c.lto.Cubins, c.lto.HostKernels, true
	}
	return nil, nil, true
}

// New returns a Compiler for o.
func New(o Options) *Compiler {
	return &Compiler{opts: o, sem: make(chan struct{}, max(runtime.NumCPU(), 1))}
}

var _ input.Compiler = (*Compiler)(nil)

// find locates ptxas and checks its release, once.
func (c *Compiler) find() {
	c.once.Do(func() {
		c.path, c.err = FindPTXAS(c.opts.PTXAS, c.opts.NVVMPath)
		if c.err != nil {
			return
		}
		if !c.opts.NoZygote {
			c.zyg = newZygote()
		}
		rel, _ := ptxasRelease(c.path)
		_, c.warn = rulesFor(c.opts.Release, rel, c.path)
	})
}

// Warning implements input.Compiler.
func (c *Compiler) Warning() string {
	c.find()
	if c.warn == "" || c.warned.Swap(true) {
		return ""
	}
	return c.warn
}

// Args is the ptxas command line (after the program) nvlink's embedded
// ptxas is equivalent to for PTX with the member options memberOpts:
// -arch=sm_<target>, those options but the compile-only flag, then
// --maxrregcount, -g and the -Xptxas words (last, so that they win), and
// -c. With whole (an LTO whole program) there is no -c and no member
// options.
func (o *Options) Args(memberOpts []string, whole bool) []string {
	args := []string{fmt.Sprintf("-arch=sm_%d", o.Arch)}
	for _, m := range memberOpts {
		if m != "--compile-only" && m != "-c" {
			args = append(args, m)
		}
	}
	if o.MaxRegCount != 0 {
		args = append(args, fmt.Sprintf("--maxrregcount=%d", o.MaxRegCount))
	}
	if o.Debug {
		args = append(args, "-g")
	}
	args = append(args, o.Xptxas...)
	if !whole {
		args = append(args, "-c")
	}
	return args
}

// PTX implements input.Compiler.
func (c *Compiler) PTX(name string, file bool, ptx []byte, memberOpts []string) ([]byte, string, error) {
	c.find()
	if c.err != nil {
		return nil, "", c.err
	}
	j := c.compile(c.opts.Args(memberOpts, false), ptx)
	c.mu.Lock()
	c.ran = append(c.ran, ptxRun{name, file, j.took, j.err == nil})
	c.mu.Unlock()
	return j.result(), j.log, j.err
}

// Phases are the compiles of PTX that ran, for --time, in nvlink's order:
// the inputs' (the file inputs, then the -l libraries; an archive's
// members in its order), whatever order they ended in, up to the first
// that failed (where nvlink, compiling one after another, stops). A PTX
// file's row is named after it, a member's "ptx".
func (c *Compiler) Phases() []Phase {
	c.mu.Lock()
	ran := slices.Clone(c.ran)
	c.mu.Unlock()
	if len(ran) == 0 {
		return nil
	}
	pos := map[string]int{}
	items, _ := scan(c.opts.Inputs, c.opts.LibDirs, c.opts.Arch, scanKind)
	for i := len(items) - 1; i >= 0; i-- {
		pos[items[i].name] = i
	}
	at := func(r ptxRun) int {
		if i, ok := pos[r.name]; ok {
			return i
		}
		return len(items)
	}
	slices.SortStableFunc(ran, func(a, b ptxRun) int {
		if d := at(a) - at(b); d != 0 {
			return d
		}
		return strings.Compare(a.name, b.name)
	})
	var ps []Phase
	for _, r := range ran {
		if !r.ok {
			break
		}
		p := Phase{Source: "ptx", Name: "ptxas", Input: r.name, Output: "cubin", Took: r.took}
		if r.file {
			p.Source, p.Output = r.name, ""
		}
		ps = append(ps, p)
	}
	return ps
}

// runPTXAS runs ptxas on ptx with args; it writes the cubin to a pipe. It
// returns the cubin, ptxas's messages (naming its input as nvlink's
// embedded ptxas does) and an error if it failed. With a zygote (z not
// nil) ptxas is its fork where it can be, else a process of its own.
func runPTXAS(z *zygote, path string, args []string, ptx []byte) ([]byte, string, error) {
	src, name, cleanup, err := ptxSource(ptx)
	if err != nil {
		return nil, "", &input.ToolError{Msg: fmt.Sprintf("could not hand the PTX to ptxas: %v", err)}
	}
	defer cleanup()
	var out, msgs bytes.Buffer
	ran := false
	if z != nil && src != nil {
		ran, err = runForked(z, path, args, src, &out, &msgs)
	}
	if !ran {
		cmd := exec.Command(path, append(args, name, "-o", "/dev/stdout")...)
		cmd.Env = childEnv(os.Environ())
		dieWithParent(cmd)
		if src != nil {
			cmd.ExtraFiles = []*os.File{src}
		}
		cmd.Stdout, cmd.Stderr = &out, &msgs
		err = cmd.Run()
	}
	log := strings.ReplaceAll(msgs.String(), "ptxas "+name+",", "ptxas application ptx input,")
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee), errors.As(err, new(childError)):
		return nil, log, fmt.Errorf("ptxas: %v", err)
	case err != nil:
		return nil, log, &input.ToolError{Msg: fmt.Sprintf("could not run ptxas '%s': %v", path, err)}
	}
	return out.Bytes(), log, nil
}

// childError is a zygote child's failure (its exit status or signal).
type childError struct{ error }

// runForked runs ptxas as the zygote's child, reading its cubin into out
// and its messages into msgs. ran is false if the zygote could not fork
// one (nothing ran).
func runForked(z *zygote, path string, args []string, src *os.File, out, msgs *bytes.Buffer) (ran bool, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return false, nil
	}
	defer outR.Close()
	msgR, msgW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return false, nil
	}
	defer msgR.Close()
	pid, pre, err := z.fork(path, args, src, outW, msgW)
	outW.Close()
	msgW.Close()
	if err != nil {
		return false, nil
	}
	out.Write(pre[0])
	msgs.Write(pre[1])
	read := make(chan struct{})
	go func() {
		msgs.ReadFrom(msgR)
		close(read)
	}()
	out.ReadFrom(outR)
	<-read
	if err := waitChild(pid); err != nil {
		return true, childError{err}
	}
	return true, nil
}

// mallocTunables are the settings of glibc's malloc a ptxas process gets
// (GLIBC_TUNABLES) unless warplink's environment sets its own. ptxas
// allocates some 10-20 MiB afresh in every process, a page fault a page,
// where nvlink's built-in ptxas reuses one heap for all its compiles.
// Transparent huge pages for the heap (hugetlb=1: where the system has
// them on madvise or always), a heap grown 64 MiB at a time (top_pad) and
// large blocks taken from it rather than mapped one by one
// (mmap_threshold) save most of those faults, and a process's system
// time with them (docs/jit-lto.md, "Speed"). They change where memory
// comes from, not what ptxas computes (TestJITLTO's links stay
// byte-identical to nvlink's). A glibc without a tunable ignores it.
const mallocTunables = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864:glibc.malloc.mmap_threshold=33554432"

// childEnv is the environment of a ptxas process: env, with
// mallocTunables where env has no GLIBC_TUNABLES (set, even empty: left as
// it is).
func childEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GLIBC_TUNABLES=") {
			return env
		}
	}
	return append(env, "GLIBC_TUNABLES="+mallocTunables)
}

// FindPTXAS returns the ptxas to run, in this order: explicit (the
// WARPLINK_PTXAS setting) if not ""; ptxas beside the running executable
// (an nvlink link to warplink in a toolkit's bin folder); <nvvmpath>/../bin
// (where nvcc's -nvvmpath points into a toolkit); each folder of $PATH;
// $CUDA_HOME/bin, $CUDA_PATH/bin; /usr/local/cuda/bin.
func FindPTXAS(explicit, nvvmPath string) (string, error) {
	if explicit != "" {
		if isExec(explicit) {
			return explicit, nil
		}
		return "", &input.ToolError{Msg: fmt.Sprintf("ptxas '%s' (WARPLINK_PTXAS) is not an executable file", explicit)}
	}
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if nvvmPath != "" {
		dirs = append(dirs, filepath.Join(nvvmPath, "..", "bin"))
	}
	dirs = append(dirs, filepath.SplitList(os.Getenv("PATH"))...)
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if d := os.Getenv(env); d != "" {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/bin")
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if p := filepath.Join(d, "ptxas"); isExec(p) {
			return p, nil
		}
	}
	return "", &input.ToolError{Msg: "PTX needs ptxas, which was not found (set WARPLINK_PTXAS, or put the CUDA toolkit's bin folder on PATH)"}
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// PTXASRelease returns the release of the ptxas at path ("11.8"; ok
// false when it cannot be read).
func PTXASRelease(path string) (string, bool) { return ptxasRelease(path) }

// ptxasRelease returns the release of the ptxas at path ("11.8"), from
// `ptxas --version` ("Cuda compilation tools, release 11.8, V11.8.89").
func ptxasRelease(path string) (string, bool) {
	cmd := exec.Command(path, "--version")
	dieWithParent(cmd)
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	_, rest, ok := strings.Cut(string(out), "release ")
	if !ok {
		return "", false
	}
	rel, _, _ := strings.Cut(rest, ",")
	major, minor, ok := strings.Cut(strings.TrimSpace(rel), ".")
	if _, err := strconv.Atoi(major); !ok || err != nil {
		return "", false
	}
	if _, err := strconv.Atoi(minor); err != nil {
		return "", false
	}
	return major + "." + minor, true
}
