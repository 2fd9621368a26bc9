package merge

import (
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

// errVirtualTarget ends a link for a virtual target once its inputs are
// read: a success without output (read).
var errVirtualTarget = errors.New("virtual target")

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
	defer ctx.names.Free()
	if opts.PreserveRelocs && opts.Arch == "sm_90" {
		// (Only there: nvlink 11.8 says nothing for sm_52 to sm_89.)
		diags.Warnf(diag.At(diag.PhaseInputs, -1, 0), preserveRelocsWarning, opts.Arch)
	}
	// The write pass streams the file into an unnamed or temporary file
	// (atomicfile), named or renamed into place only when the link
	// succeeds; the end of relocate has it prepared ahead (output.go).
	out := &outputFile{opts: opts, diags: diags}
	ctx.openOutput, ctx.prepareOutput, ctx.preparedRuns = out.open, out.prepare, out.preparedRuns
	err := run(ctx)
	if errors.Is(err, errVirtualTarget) {
		err = nil
	}
	cerr := out.close(err == nil && !diags.Failed())
	if out.opened {
		// (What went wrong writing, flushing or naming the file.)
		if err == nil {
			err = cerr
		}
		if err != nil && !errors.Is(err, errFatal) {
			diags.Fatalf(diag.At(diag.PhaseOutput, 0, 0), "Could not open output file '%s'", opts.output())
		}
	}
	if err == nil && !diags.Failed() && opts.RegisterLinkBinaries != "" {
		if werr := writeRegisterFile(opts, ctx); werr != nil {
			diags.Fatalf(diag.At(diag.PhaseOutput, 1, 0), "Could not open output file '%s'", opts.RegisterLinkBinaries)
		}
	}
	diags.Print(stderr, prog)
	if text, exited := diags.ExitText(); exited {
		// A compiler ended the link as nvlink's built-in ptxas ends
		// nvlink (diag.Exit; input.expander.jitPTX): --time has its
		// headings only.
		if opts.Time != "" {
			AppendTime(opts.Time, stdout, nil)
		}
		io.WriteString(stdout, text)
		return diags.ExitCode()
	}
	if opts.Time != "" {
		ctx.Timer.report(opts.Time, stdout, opts)
	}
	if err != nil && (errors.Is(err, errCheck) || !errors.Is(err, errFatal) && !diags.Failed()) {
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

// run is the table of contents of a link: one line per pass, in order.
// Each pass's name is its --time label, its --warplink-dump key and the
// name Options.PassDone hears. goOn: the link goes on to the next pass
// after this one recorded an error (so that later diagnostics come as
// nvlink's do); otherwise it stops there.
func run(ctx *Context) error {
	passes := []struct {
		name string
		fn   func(*Context) error
		goOn bool
	}{
		// Inputs: decode files, archives, fatbinaries, -l libraries (read.go).
		{"read", read, false},
		// Symbol resolution: one winner per global name, sharded (resolve.go).
		{"resolve", resolve, false},
		// Output sections and symbols in nvlink's creation order (merge.go).
		{"merge", merge, false},
		// Functions no entry reaches removed; the call graph (dce.go).
		{"dce", dce, false},
		// Data placed in commons, constant banks, shared memory (layout.go).
		{"layout", layout, true},
		// Link-time relocations applied, the kept ones listed (relocate.go).
		{"relocate", relocate, true},
		// Generated sections (.nv.info, call graph, EXTERNS), undefined
		// references, string tables (finalize.go).
		{"finalize", finalize, true},
		// The deterministic ordering stage: section order and symbol
		// indices (order.go); the -v report. Nothing is added after it.
		{"order", order, false},
		// The output file, streamed (write.go).
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
	var mods []RegisterModule
	if opts.RegisterModules != nil {
		linked := map[string]bool{}
		for _, o := range ctx.Objs {
			linked[o.Name] = true
		}
		for _, m := range opts.RegisterModules {
			if !m.IfLinked || linked[m.Name] {
				mods = append(mods, m)
			}
		}
	} else {
		for _, o := range ctx.Objs {
			mods = append(mods, RegisterModule{Name: o.Name, ModuleID: o.ModuleID()})
		}
	}
	return atomicfile.WriteFile(opts.Files, opts.RegisterLinkBinaries, RegisterFile(mods))
}

// RegisterModule is an object --register-link-binaries lists; IfLinked:
// only if the link keeps an object of that name (an archive member the
// LTO step cannot know is pulled in, Options.RegisterModules).
type RegisterModule struct {
	Name, ModuleID string
	IfLinked       bool
}

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
// CSV (AppendTime): opts.TimeRows's rows, then one row per pass with the
// time in ms.
func (t *Timer) report(path string, stdout io.Writer, opts *Options) {
	var rows []string
	if opts.TimeRows != nil {
		rows = opts.TimeRows()
	}
	for i := range t.names {
		rows = append(rows, fmt.Sprintf(" , %s , %d , %s , %s , warplink , %.3f , ms", t.names[i], len(opts.Inputs), opts.output(), opts.Arch, float64(t.durs[i].Microseconds())/1000))
	}
	AppendTime(path, stdout, rows)
}

// AppendTime appends rows to the --time file path ("-" = stdout), after
// the column headings when the file is empty, as nvlink does. A file
// that cannot be opened is left alone (nvlink says nothing either).
func AppendTime(path string, stdout io.Writer, rows []string) {
	w := stdout
	empty := true
	if path != "-" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			empty = false
		}
		w = f
	}
	var b strings.Builder
	if empty {
		b.WriteString("source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n")
	}
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	io.WriteString(w, b.String())
}
