// Command warplink is a parallel, drop-in replacement for NVIDIA's CUDA
// device linker nvlink. Invoked as "nvlink" (through a symlink) it prints
// its diagnostics under that name, so that build tools see nvlink.
//
//	warplink [nvlink options] <objects>   link, like nvlink
//	warplink demo [-o FILE]               link the embedded sample program
//	warplink cmp A B                      compare two cubins
//	warplink dump FILE                    print a readelf-like dump
//
// The runtime does not watch the CPU limit for changes
// (updatemaxprocs=0): the goroutine and timer that would do it cost every
// small link, which is over in a few milliseconds.
//
//go:debug updatemaxprocs=0
package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/cli"
	"github.com/warplink/warplink/internal/cmpelf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/jit"
	_ "github.com/warplink/warplink/internal/stackgrow" // (its init: see there)
	"github.com/warplink/warplink/merge"
)

func main() {
	files := atomicfile.NewRegistry()
	stop := files.HandleSignals(os.Interrupt, syscall.SIGTERM)
	// (The outputs' commits are the run's last acts: over an existing
	// file the moment of renaming it needs no handler.)
	files.IgnoreSignalsAtCommit()
	stopProfile := startProfile()
	code := run(os.Args, os.Stdout, os.Stderr, files, true)
	stopProfile()
	stop()
	os.Exit(code)
}

// progName is the name diagnostics are printed under: "nvlink" when the
// binary was invoked as nvlink, else "warplink".
func progName(argv0 string) string {
	if base := filepath.Base(argv0); base == "nvlink" || strings.EqualFold(base, "nvlink.exe") {
		return "nvlink"
	}
	return "warplink"
}

// run is the whole program; it returns the exit status. exiting says the
// process ends when it returns: the collector's settings a light link
// changed are then left as they are (turned back on over a heap that has
// grown uncollected, the collector could start a cycle, for nothing).
func run(argv []string, stdout, stderr io.Writer, files *atomicfile.Registry, exiting bool) int {
	prog := progName(argv[0])
	args := argv[1:]
	if prog == "warplink" && len(args) == 0 {
		// (Invoked as nvlink, nvlink's own message: a link without
		// options, which names no architecture.)
		io.WriteString(stderr, usage)
		return 1
	}
	if prog == "warplink" {
		switch args[0] {
		case "cmp", "dump":
			return cmpelf.Main(args, stdout, stderr)
		case "demo":
			return demo(args[1:], stdout, stderr)
		}
	}
	return link(args, stdout, stderr, prog, files, exiting)
}

// usage is what warplink prints when given no argument.
const usage = `usage: warplink [nvlink options] <objects>   link, like nvlink (--help: the options)
       warplink demo [-o FILE]               link the embedded sample program
       warplink cmp A B                      compare two cubins
       warplink dump FILE                    print a readelf-like dump
`

// link runs an nvlink command line.
func link(args []string, stdout, stderr io.Writer, prog string, files *atomicfile.Registry, exiting bool) int {
	bag := &diag.Bag{}
	fatal := func(err error) int {
		bag.Fatalf(diag.At(diag.PhaseInputs, 0, 0), "%s", err)
		bag.Print(stderr, prog)
		return 1
	}
	// A command line long enough that the link cannot be small gets the
	// heap's advice before it is parsed, so that what parsing allocates
	// lands in huge pages too (10,000 objects: about 190 faults fewer).
	heap := newHeapSizer()
	defer heap.release()
	// WARPLINK_HUGEPAGES=0 reads the inputs into the Go heap instead, and
	// leaves the heap's pages as the runtime has them.
	plainMemory := os.Getenv("WARPLINK_HUGEPAGES") == "0"
	early := len(args) > largeArgs && !plainMemory
	if early {
		heap.advise(false, len(args))
	}
	// WARPLINK_NVLINK_VERSION names the nvlink release to link as where
	// the command line cannot (nvcc's -dlink step), as --nvlink-version.
	cmd, err := cli.ParseRelease(args, os.ReadFile, bag, os.Getenv("WARPLINK_NVLINK_VERSION"))
	if err != nil {
		return fatal(err)
	}
	switch {
	case cmd.Help:
		bag.Print(stderr, prog)
		cli.PrintHelpFor(stdout, prog, cmd.Release)
		return 0
	case cmd.Version:
		bag.Print(stderr, prog)
		cli.PrintVersion(stdout, prog, cmd.Opts.NvlinkVersion)
		return 0
	}
	if err := cmd.Check(); err != nil {
		return fatal(err)
	}
	bag.Print(stderr, prog)
	if cmd.ToolName != "" {
		prog = cmd.ToolName
	}
	if cmd.HostLinkerScript != "" {
		return hostLinkerScript(cmd, stdout, prog, files, bag, stderr)
	}
	opts := &merge.Options{Flags: cmd.Opts, Warplink: cmd.Warplink}
	opts.Files = files
	if cmd.Release == 0 {
		opts.CheckRelease = cmd.CheckRelease
	}
	jc := jit.New(jitOptions(cmd))
	defer jc.Close()
	if code, done := ltoStep(cmd, opts, jc, files, stdout, stderr, prog); done {
		return code
	}
	opts.JIT, opts.JITWorkers = jc, runtime.NumCPU()
	opts.PlainMemory = plainMemory
	// WARPLINK_IOURING=0 reads the inputs without io_uring.
	opts.NoRing = os.Getenv("WARPLINK_IOURING") == "0"
	ownProcs := opts.Threads == 0 && os.Getenv("GOMAXPROCS") == ""
	// (The estimate also decides the arenas' pages:
	// merge.Options.InputEstimate.)
	est, isLight, serial := lightLink(opts)
	isLight = isLight && !early
	serial = serial && isLight && opts.Threads == 0
	if isLight {
		restore := light(opts, est, serial)
		code := merge.Link(opts, stdout, stderr, prog)
		if !exiting {
			restore()
		}
		return code
	}
	// A larger link gets one P per 2.5 MiB of input (procsFor), and below
	// adviceFrom leaves the Go heap's pages as the runtime has them.
	opts.InputEstimate = est
	if procs := runtime.GOMAXPROCS(0); ownProcs {
		if p := procsFor(est, procs); p < procs {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
		}
	}
	heap.noAdvice, opts.SmallPages = pagesFor(est, !early && !plainMemory)
	if !early {
		heap.advise(opts.PlainMemory || heap.noAdvice, len(opts.Inputs))
	}
	opts.InputSize = heap.size
	opts.Reading = heap.reading
	opts.PassDone = heap.passDone
	return merge.Link(opts, stdout, stderr, prog)
}

// hostLinkerScript is the -ghls mode: write the script to -o or stdout.
func hostLinkerScript(cmd *cli.Command, stdout io.Writer, prog string, files *atomicfile.Registry, bag *diag.Bag, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		bag.Fatalf(diag.At(diag.PhaseInputs, 0, 0), format, a...)
		bag.Print(stderr, prog)
		return 1
	}
	if cmd.Opts.Output == "" {
		if err := cli.WriteHostLinkerScript(stdout, cmd.HostLinkerScript, cmd.HostCCBin, cmd.Opts.Machine64); err != nil {
			return fail("%s", err)
		}
		return 0
	}
	f, err := files.Create(cmd.Opts.Output)
	if err != nil {
		return fail("Could not open output file '%s'", cmd.Opts.Output)
	}
	defer f.Abort()
	if err := cli.WriteHostLinkerScript(f, cmd.HostLinkerScript, cmd.HostCCBin, cmd.Opts.Machine64); err != nil {
		return fail("%s", err)
	}
	if err := f.Commit(); err != nil {
		return fail("Could not write output file '%s'", cmd.Opts.Output)
	}
	return 0
}
