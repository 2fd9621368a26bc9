package jit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/nvvmproto"
	"github.com/warplink/warplink/merge"
)

// LTO is a -dlto link's settings.
type LTO struct {
	Options
	ForcePartial   bool     // -force-partial-lto
	ForceWhole     bool     // -force-whole-lto
	IgnoreHostInfo bool     // --ignore-host-info
	EmitPTX        bool     // -emit-ptx: the PTX is the output
	KernelsUsed    []string // --kernels-used
	VariablesUsed  []string // --variables-used
	// Helper is the warplink-nvvm to run ("": FindHelper).
	Helper string
}

// Result is what the LTO step leaves to the link.
type Result struct {
	// Output, when not nil, is the whole output file (a whole program
	// compiled by ptxas, or -emit-ptx's PTX): there is no link.
	Output []byte
	// Cubin is the LTO program's relocatable cubin, linked as "lto.cubin"
	// in place of the input named Last; the other IR inputs give nothing.
	Cubin []byte
	Last  string
	// HostKernels are the kernel patterns the IR inputs' host code
	// references (.nvHRKE, then .nvHRKI, of each in order), which the
	// link takes for the LTO cubin's.
	HostKernels []string
	// None: there was no IR input (nvlink ignores -dlto).
	None bool
	// Register is what --register-link-binaries lists: the inputs with
	// device code in order, IR ones included; for a whole program the IR
	// inputs alone, last first.
	Register []merge.RegisterModule
	// Phases are the compiles that ran, for --time: libnvvm's, then
	// ptxas's if it ran.
	Phases []Phase
}

// Phase is one compile's row of nvlink's --time file.
type Phase struct {
	Source, Name, Input, Output string // "lto.nvvm", "cicc", "", "lto.ptx"
	Took                        time.Duration
}

// Row is p's --time row for the target arch ("sm_80"), by tool (the
// program's name), in nvlink's format (the time in ms, 4 decimals).
func (p Phase) Row(arch, tool string) string {
	return fmt.Sprintf("%s , %s , %s , %s , %s , %s , %.4f , ms", p.Source, p.Name, p.Input, p.Output, arch, tool, float64(p.Took.Nanoseconds())/1e6)
}

// errFatal says the LTO step stopped on a fatal diagnostic, recorded.
var errFatal = errors.New("fatal")

// IsFatal reports whether err is the LTO step's recorded fatal diagnostic.
func IsFatal(err error) bool { return errors.Is(err, errFatal) }

// Run does the LTO step of a link, as nvlink 11.8: the IR inputs, in
// order, form one libnvvm program compiled with the options nvlink
// builds; libnvvm's PTX goes to ptxas, whole (no link) when libnvvm says
// the program is whole (100) and nothing else is linked, else with -c. Its
// diagnostics go to diags, keyed (0, -1, n): before the link's.
func (l *LTO) Run(diags *diag.Bag) (*Result, error) {
	seq := 0
	key := func() diag.Key { seq++; return diag.At(diag.PhaseInputs, -2, seq) }
	fatal := func(format string, a ...any) error {
		diags.Fatalf(key(), format, a...)
		return errFatal
	}
	// nvlink loads libnvvm first, whether or not an input has IR, and
	// fails before anything else without it.
	helper, err := FindHelper(l.Helper)
	if err != nil {
		diags.Infof(key(), "%v", err)
		return nil, fatal("elfLink linker library load error")
	}
	if err := checkLibrary(helper, l.NVVMPath); err != nil {
		diags.Infof(key(), "%v", err)
		return nil, fatal("elfLink linker library load error")
	}
	items, bad := scan(l.Inputs, l.LibDirs, l.Arch, scanIR)
	if bad != "" {
		return nil, fatal("Could not open input file '%s'", bad)
	}
	var irs []item
	partial, devrt := l.ForcePartial, false
	for _, it := range items {
		switch {
		case it.kind == itemIR:
			irs = append(irs, it)
		case it.devrt:
			devrt = devrt || it.kind == itemCode
		case it.kind == itemCode:
			partial = true
			diags.Infof(key(), "requested LTO but '%s' not built for LTO so doing partial LTO", it.name)
		}
	}
	if len(irs) == 0 {
		diags.Warnf(key(), "Ignoring -dlto option because no LTO objects found")
		return &Result{None: true}, nil
	}
	opts, maxReg, err := l.nvvmOptions(irs, partial, devrt, diags, key)
	if err != nil {
		return nil, err
	}
	req := &nvvmproto.Request{NVVMPath: l.NVVMPath, Options: opts}
	for _, it := range irs {
		req.Modules = append(req.Modules, nvvmproto.Module{Name: it.name, Data: it.ir})
	}
	var refs []byte
	if !partial && !l.IgnoreHostInfo {
		refs = hostRefs(items, l.KernelsUsed, l.VariablesUsed)
	}
	t0 := time.Now()
	rep, err := runHelper(helper, req, refs)
	nvvmPhase := Phase{Source: "lto.nvvm", Name: "cicc", Output: "lto.ptx", Took: time.Since(t0)}
	if err != nil {
		// (nvlink's words for a failing libnvvm, after what failed.)
		diags.Infof(key(), "%v", err)
		return nil, fatal("elfLink nvvm error")
	}
	switch rep.Status {
	case nvvmproto.NoLibrary:
		diags.Infof(key(), "%s", rep.Message)
		return nil, fatal("elfLink linker library load error")
	case nvvmproto.AddFailed:
		diags.Infof(key(), "'%s': libnvvm refused its NVVM IR (%s)", irs[rep.Module].name, rep.Message)
		return nil, fatal("elfLink nvvm error")
	case nvvmproto.Failed:
		diags.Infof(key(), "libnvvm: %s", rep.Message)
		return nil, fatal("elfLink nvvm error")
	}
	if rep.Result != 0 && rep.Result != 100 {
		// (nvlink 11.8: the log, libnvvm's name of the error after it.)
		diags.Infof(key(), "%s%s", rep.Log, rep.Message)
		return nil, fatal("elfLink JIT compile failed")
	}
	if len(rep.Log) > 0 {
		// (Verbatim, its last newline included: nvlink prints a blank line.)
		diags.Infof(key(), "%s", rep.Log)
	}
	if l.EmitPTX {
		return &Result{Output: rep.PTX, Register: register(items, false), Phases: []Phase{nvvmPhase}}, nil
	}
	p := l.Options
	p.MaxRegCount = maxReg
	whole := rep.Result == 100 && !partial
	path, err := FindPTXAS(l.PTXAS, l.NVVMPath)
	if err != nil {
		return nil, fatal("%v", err)
	}
	t0 = time.Now()
	out, log, err := runPTXAS(nil, path, p.ltoArgs(whole), rep.PTX)
	phases := []Phase{nvvmPhase, {Source: "lto.ptx", Name: "ptxas", Output: "lto.cubin", Took: time.Since(t0)}}
	if log != "" {
		diags.Text(key(), log)
	}
	if err != nil {
		return nil, fatal("elfLink fatbinary error")
	}
	if whole {
		return &Result{Output: out, Register: register(irs, true), Phases: phases}, nil
	}
	return &Result{Cubin: out, Last: irs[len(irs)-1].name, Register: register(items, false), HostKernels: hostKernels(irs), Phases: phases}, nil
}

// register is what --register-link-binaries lists: the items with device
// code in order; for a whole program (whole, items the IR inputs) those
// last first, as nvlink 11.8 lists them.
func register(items []item, whole bool) []merge.RegisterModule {
	var mods []merge.RegisterModule
	for _, it := range items {
		if it.kind != itemNone {
			mods = append(mods, merge.RegisterModule{Name: it.name, ModuleID: it.module})
		}
	}
	if whole {
		slices.Reverse(mods)
	}
	return mods
}

// hostKernels are the kernel patterns of the IR inputs' host code
// (.nvHRKE, then .nvHRKI, of each in order).
func hostKernels(irs []item) []string {
	var ks []string
	for _, it := range irs {
		for _, sec := range []string{".nvHRKE", ".nvHRKI"} {
			for _, p := range bytes.Split(it.host[sec], []byte{0}) {
				if len(p) > 0 {
					ks = append(ks, string(p))
				}
			}
		}
	}
	return ks
}

// ltoArgs is ptxas's command line for the LTO program's PTX:
// -arch=sm_<target> [--maxrregcount=N] [-g] <Xptxas words> [-c].
func (o *Options) ltoArgs(whole bool) []string { return o.Args(nil, whole) }

// nvvmOptions merges the IR inputs' options into nvvmCompileProgram's, in
// nvlink's order, and returns the -maxrregcount the link uses (0: none).
func (l *LTO) nvvmOptions(irs []item, partial, devrt bool, diags *diag.Bag, key func() diag.Key) ([]string, int64, error) {
	get := func(opts []string, name, def string) string {
		for _, o := range opts {
			if v, ok := strings.CutPrefix(o, name+"="); ok {
				return v
			}
		}
		return def
	}
	lineInfo := 0
	for _, it := range irs {
		if hasOpt(it.opts, "-generate-line-info") {
			lineInfo++
		}
	}
	if lineInfo > 0 && lineInfo < len(irs) {
		diags.Infof(key(), "Some objects do not have '-lineinfo' specified but others do; will build everything with '-lineinfo'")
	}
	opts := []string{fmt.Sprintf("-arch=compute_%d", l.Arch)}
	for _, f := range []struct{ member, nvvm, def string }{
		{"-ftz", "-ftz", "0"}, {"-prec_div", "-prec-div", "1"}, {"-prec_sqrt", "-prec-sqrt", "1"}, {"-fmad", "-fma", "1"},
	} {
		v := get(irs[0].opts, f.member, f.def)
		for _, it := range irs[1:] {
			if get(it.opts, f.member, f.def) != v {
				diags.Fatalf(key(), "Cicc option values for '%s' do not match", f.nvvm)
				return nil, 0, errFatal
			}
		}
		opts = append(opts, f.nvvm+"="+v)
	}
	opts = append(opts, "-link-lto")
	maxReg := l.MaxRegCount
	if maxReg == 0 {
		var seen []int64
		missing := false
		for _, it := range irs {
			if v, ok := memberMaxReg(it.opts); ok {
				seen = append(seen, v)
			} else {
				missing = true
			}
		}
		for _, v := range seen {
			if v != seen[0] {
				diags.Fatalf(key(), "Cicc option values for '-maxrregcount' do not match")
				return nil, 0, errFatal
			}
		}
		if len(seen) > 0 {
			maxReg = seen[0]
			if missing {
				diags.Infof(key(), "Some objects do not have '-maxrregcount' specified but others do; will build everything with '-maxrregcount=%d'", maxReg)
			}
		}
	}
	if maxReg != 0 {
		opts = append(opts, fmt.Sprintf("-maxreg=%d", maxReg))
	}
	if lineInfo > 0 {
		opts = append(opts, "-generate-line-info")
	}
	if partial || devrt {
		opts = append(opts, "--device-c")
	}
	if l.Debug {
		opts = append(opts, "-g")
	}
	switch {
	case partial:
		opts = append(opts, "--force-device-c")
	case !l.IgnoreHostInfo:
		opts = append(opts, "-has-global-host-info")
	}
	return opts, maxReg, nil
}

// memberMaxReg reads "-maxreg N" (or -maxreg=N) from a member's options.
func memberMaxReg(opts []string) (int64, bool) {
	for i, o := range opts {
		v, ok := strings.CutPrefix(o, "-maxreg=")
		if o == "-maxreg" && i+1 < len(opts) {
			v, ok = opts[i+1], true
		}
		if ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

func hasOpt(opts []string, o string) bool {
	for _, x := range opts {
		if x == o {
			return true
		}
	}
	return false
}

// runHelper runs the warplink-nvvm at helper on req; refs, when not nil, is the host
// reference file, handed over as the helper's descriptor 3 (a memfd: no
// file in the file system) and named by -host-ref-file.
func runHelper(helper string, req *nvvmproto.Request, refs []byte) (*nvvmproto.Reply, error) {
	cmd := exec.Command(helper)
	dieWithParent(cmd)
	if refs != nil {
		src, name, cleanup, err := ptxSource(refs)
		if err != nil {
			return nil, fmt.Errorf("could not hand the host references to libnvvm: %v", err)
		}
		defer cleanup()
		if src != nil {
			cmd.ExtraFiles = []*os.File{src}
		}
		req.Options = append(req.Options, "-host-ref-file="+name)
	}
	var in, out, errs bytes.Buffer
	if err := nvvmproto.WriteRequest(&in, req); err != nil {
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = &in, &out, &errs
	runErr := cmd.Run()
	rep, err := nvvmproto.ReadReply(&out)
	if runErr != nil || err != nil {
		what := strings.TrimSpace(errs.String())
		if what == "" && runErr != nil {
			what = runErr.Error()
		}
		return nil, fmt.Errorf("libnvvm failed (%s) on the NVVM IR of %s", what, names(req.Modules))
	}
	return rep, nil
}

// checkLibrary asks the helper whether a usable libnvvm loads for
// nvvmPath (warplink-nvvm -check); the error says what it tried.
func checkLibrary(helper, nvvmPath string) error {
	var errs bytes.Buffer
	cmd := exec.Command(helper, "-check", nvvmPath)
	cmd.Stderr = &errs
	if err := cmd.Run(); err != nil {
		what := strings.TrimPrefix(strings.TrimSpace(errs.String()), "warplink-nvvm: ")
		if what == "" {
			what = fmt.Sprintf("libnvvm helper '%s' failed: %v", helper, err)
		}
		return errors.New(what)
	}
	return nil
}

// names lists the modules' names for a message.
func names(ms []nvvmproto.Module) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + m.Name + "'")
	}
	return b.String()
}

// FindHelper returns the warplink-nvvm to run: explicit (the
// WARPLINK_NVVM_HELPER setting) if not "", else the one beside the running
// executable, else the first on $PATH.
func FindHelper(explicit string) (string, error) {
	if explicit != "" {
		if isExec(explicit) {
			return explicit, nil
		}
		return "", fmt.Errorf("libnvvm helper '%s' (WARPLINK_NVVM_HELPER) is not an executable file", explicit)
	}
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), "warplink-nvvm"); isExec(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath("warplink-nvvm"); err == nil {
		return p, nil
	}
	return "", errors.New("-dlto needs warplink-nvvm, warplink's libnvvm helper, beside warplink or on PATH (make build installs both)")
}
