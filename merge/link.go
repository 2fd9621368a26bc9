package merge

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/diag"
)

// errFatal stops the link after a fatal diagnostic was recorded.
var errFatal = errors.New("fatal")

// Link runs a whole device link as the driver of passes and returns the
// process exit status nvlink would return. prog is the name diagnostics are
// printed under ("nvlink" or "warplink").
func Link(opts *Options, stdout, stderr io.Writer, prog string) int {
	diags := &diag.Bag{Werror: opts.Werror, NoWarn: opts.NoWarn}
	if opts.ReportArch {
		diags.Suffix = " (target: " + opts.Arch + ")"
	}
	ctx := newContext(opts, diags, prog)
	defer ctx.mem.Free() // last: diagnostics and dumps may name input strings
	defer ctx.tables.Free()
	if opts.PreserveRelocs && opts.Arch == "sm_90" {
		// (Only there: nvlink 11.8 says nothing for sm_52 to sm_89.)
		diags.Warnf([3]int{0, -1, 0}, "Option '--preserve-relocs' is not fully implemented for gpu archtecture '%s' and may not work as expected", opts.Arch)
	}
	// The write pass streams the file into an unnamed or temporary file
	// (atomicfile), named or renamed into place only when the link succeeds.
	var outFile *atomicfile.File
	var gather *bufio.Writer // a file under gatherBelow, written at once
	ctx.openOutput = func(size uint64) (io.Writer, error) {
		f, err := createOutput(opts.Files, opts.output())
		if err != nil {
			diags.Fatalf([3]int{9, 0, 0}, "Could not open output file '%s'", opts.output())
			return nil, errFatal
		}
		if size >= reserveFrom {
			f.Reserve(int64(min(size, 1<<62))) // (the blocks at once: see atomicfile.File.Reserve)
		}
		outFile = f
		if size < gatherBelow {
			gather = bufio.NewWriterSize(f, int(size))
			return gather, nil
		}
		return f, nil
	}
	err := run(ctx)
	if outFile != nil {
		if err == nil && gather != nil {
			err = gather.Flush()
		}
		if err == nil && !diags.Failed() {
			err = outFile.Commit()
		} else {
			outFile.Abort()
		}
		if err != nil && !errors.Is(err, errFatal) {
			diags.Fatalf([3]int{9, 0, 0}, "Could not open output file '%s'", opts.output())
		}
	}
	if err == nil && !diags.Failed() && opts.RegisterLinkBinaries != "" {
		if werr := writeRegisterFile(opts, ctx); werr != nil {
			diags.Fatalf([3]int{9, 1, 0}, "Could not open output file '%s'", opts.RegisterLinkBinaries)
		}
	}
	diags.Print(stderr, prog)
	if opts.Time != "" {
		ctx.Timer.report(opts.Time, stdout, opts)
	}
	if err != nil && !errors.Is(err, errFatal) && !diags.Failed() {
		fmt.Fprintf(stderr, "%s fatal   : %v\n", prog, err)
		return 1
	}
	return diags.ExitCode()
}

// gatherBelow is the output size under which the write pass's pieces
// (the ELF header, the sections, the headers) are gathered and written
// with one system call, as nvlink writes: a file of one run (emitChunk).
const gatherBelow = 256 << 10

// reserveFrom is the output size from which the link reserves the file's
// blocks before writing: for a smaller file (most links write a few
// kilobytes) the reservation's system call and extent bookkeeping cost
// more than the delayed allocation they spare.
const reserveFrom = 1 << 20

func (o *Options) output() string {
	if o.Output == "" {
		return "a.out"
	}
	return o.Output
}

// run is the table of contents of a link: one line per pass.
func run(ctx *Context) error {
	passes := []struct {
		name string
		fn   func(*Context) error
		goOn bool
	}{
		{"read", read, false},
		{"resolve", resolve, false},
		{"merge", merge, false},
		{"dce", dce, false},
		{"layout", layout, true},
		{"relocate", relocate, true},
		{"finalize", finalize, false},
		{"write", write, false},
	}
	for _, p := range passes {
		t0 := time.Now()
		if err := p.fn(ctx); err != nil {
			return err
		}
		ctx.Timer.add(p.name, time.Since(t0))
		if ctx.Opts.PassDone != nil {
			ctx.Opts.PassDone(p.name)
		}
		if ctx.Opts.Dump == p.name {
			dumpState(ctx, ctx.Opts.DumpTo)
		}
		if ctx.Diags.Failed() && !p.goOn {
			return errFatal
		}
	}
	return nil
}

// createOutput opens the temporary file that becomes path on Commit.
func createOutput(files *atomicfile.Registry, path string) (*atomicfile.File, error) {
	if files != nil {
		return files.Create(path)
	}
	return atomicfile.Create(path)
}

// writeRegisterFile writes --register-link-binaries: the module of every
// linked object (or Options.RegisterModules), which nvcc compiles into
// the host registration code.
func writeRegisterFile(opts *Options, ctx *Context) error {
	mods := opts.RegisterModules
	if mods == nil {
		for _, o := range ctx.Objs {
			mods = append(mods, RegisterModule{Name: o.Name, ModuleID: o.ModuleID})
		}
	}
	return atomicfile.WriteFile(opts.Files, opts.RegisterLinkBinaries, RegisterFile(mods))
}

// RegisterModule is an object --register-link-binaries lists.
type RegisterModule struct{ Name, ModuleID string }

// RegisterFile is the text of a --register-link-binaries file for mods.
// A plain cubin (no module ID) is named by its path with every other
// character than letters and digits turned into '_'.
func RegisterFile(mods []RegisterModule) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "#define NUM_PRELINKED_OBJECTS %d\n", len(mods))
	for _, m := range mods {
		id := m.ModuleID
		if id == "" {
			id = strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
					return r
				}
				return '_'
			}, m.Name)
		}
		fmt.Fprintf(&b, "DEFINE_REGISTER_FUNC(%s)\n", id)
	}
	return []byte(b.String())
}

// Timer records how long each pass took.
type Timer struct {
	names []string
	durs  []time.Duration
}

func (t *Timer) add(name string, d time.Duration) {
	t.names = append(t.names, name)
	t.durs = append(t.durs, d)
}

// report appends the pass times to path ("-" = stdout) as nvlink's --time
// CSV: its header line, then one row per pass with the time in ms.
func (t *Timer) report(path string, stdout io.Writer, opts *Options) {
	w := stdout
	if path != "-" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return
		}
		defer f.Close()
		w = f
	}
	fmt.Fprintln(w, "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit")
	for i := range t.names {
		fmt.Fprintf(w, " , %s , %d , %s , %s , warplink , %.3f , ms\n", t.names[i], len(opts.Inputs), opts.output(), opts.Arch, float64(t.durs[i].Microseconds())/1000)
	}
}
