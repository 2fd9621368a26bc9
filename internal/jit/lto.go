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
	"time"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/nvvmproto"
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
	// CheckRelease, when not nil, refuses what the command line uses that
	// nvlink of a release (125) does not accept, in its words ("" if
	// nothing): the release is known here once the ptxas is
	// (cli.Command.CheckRelease).
	CheckRelease func(int) string
}

// Result is what the LTO step leaves to the link.
type Result struct {
	// Output, when not nil, is the whole output file (a whole program
	// compiled by ptxas, or -emit-ptx's PTX): there is no link.
	Output []byte
	// Cubins are the LTO program's relocatable cubins (one; one per PTX
	// module of an extended split compile), linked as "lto.cubin" in
	// place of the input named Last; the other IR inputs give nothing.
	Cubins [][]byte
	Last   string
	// HostKernels are the kernel patterns the IR inputs' host code
	// references (.nvHRKE, then .nvHRKI, of each in order), which the
	// link takes for the LTO cubin's.
	HostKernels []string
	// None: there was no IR input (nvlink ignores -dlto).
	None bool
	// Register is what --register-link-binaries lists: the inputs with
	// device code in order, IR ones included; for a whole program the IR
	// inputs alone, last first.
	Register []Module
	// Phases are the compiles that ran, for --time: libnvvm's, then
	// ptxas's if it ran.
	Phases []Phase
	// Warned: the step printed the ptxas release warning (which the
	// link's compiles then do not print again).
	Warned bool
}

// Module is an input --register-link-binaries lists: its name and its
// host object's module ID ("" for none); IfLinked: an archive member
// with code (libcudadevrt's), which the link may leave out, and which is
// listed only if it does not. As merge.RegisterModule, which the driver
// converts it to (package jit does not import merge).
type Module struct {
	Name, ModuleID string
	IfLinked       bool
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

// errPTXASExited ends an LTO step whose ptxas printed an informational
// option's text and exited (Run).
var errPTXASExited = errors.New("ptxas exited")

// IsFatal reports whether err is the LTO step's recorded fatal diagnostic.
func IsFatal(err error) bool { return errors.Is(err, errFatal) }

// Run does the LTO step of a link, as nvlink 11.8 or 12.5 (the rules of
// the release named or of the ptxas found, release.go): the IR inputs, in
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
	t, err := l.tools(diags, key)
	if err != nil {
		return nil, err
	}
	ptxas, ptxasErr, r, warned, helper := t.ptxas, t.ptxasErr, t.rules, t.warned, t.helper
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
	opts, maxReg, err := l.nvvmOptions(r, irs, partial, devrt, diags, key)
	if err != nil {
		return nil, err
	}
	var refs []byte
	if lists, ok := hostRefs(items, l.KernelsUsed, l.VariablesUsed); ok && !partial && !l.IgnoreHostInfo {
		if r.HostRefFile {
			refs = hostRefFile(lists)
		} else {
			opts = append(opts, hostRefOptions(lists)...)
		}
	}
	req := &nvvmproto.Request{NVVMPath: l.NVVMPath, Options: opts}
	for _, it := range irs {
		req.Modules = append(req.Modules, nvvmproto.Module{Name: it.name, Data: it.ir})
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
		return &Result{Output: rep.PTX, Register: register(items, false), Phases: []Phase{nvvmPhase}, Warned: warned}, nil
	}
	p := l.Options
	p.MaxRegCount = maxReg
	whole := rep.Result == 100 && !partial
	if ptxasErr != nil {
		return nil, fatal("%v", ptxasErr)
	}
	res := &Result{Last: irs[len(irs)-1].name, Register: register(items, false), HostKernels: hostKernels(irs), Warned: warned}
	mods := splitPTX(rep.PTX)
	if len(mods) > 1 {
		// An extended split compile's modules: nvlink 12.5 compiles each
		// as a relocatable cubin and links them, whole program or not
		// (its output is the link of `ptxas -c` of each, in order).
		whole = false
	}
	t0 = time.Now()
	outs, log, err := ptxasEach(ptxas, p.ltoArgs(whole), mods)
	res.Phases = []Phase{nvvmPhase, {Source: "lto.ptx", Name: "ptxas", Output: "lto.cubin", Took: time.Since(t0)}}
	if log != "" {
		diags.Text(key(), log)
	}
	if err != nil {
		return nil, fatal("elfLink fatbinary error")
	}
	if len(outs[0]) > 0 && !elf.IsELF(outs[0]) {
		// (-Xptxas --version: ptxas printed its text where the cubin
		// goes and exited, and so does nvlink, the row of its libnvvm
		// compile written: as input.expander.jitPTX.)
		diags.Exit(key(), string(outs[0]))
		return &Result{Phases: res.Phases[:1]}, errPTXASExited
	}
	switch {
	case whole && r.WholeNeedsDevrt && !devrt:
		return nil, fatal("expected libcudadevrt object")
	case whole:
		return &Result{Output: outs[0], Register: register(irs, true), Phases: res.Phases, Warned: warned}, nil
	}
	res.Cubins = outs
	return res, nil
}

// ptxHeader starts every PTX module libnvvm writes.
var ptxHeader = []byte("//\n// Generated by NVIDIA NVVM Compiler")

// splitPTX cuts libnvvm's result into its PTX modules: one, or under
// -split-compile-extended several, one after another, each from its
// header on (ptxHeader).
func splitPTX(ptx []byte) [][]byte {
	var mods [][]byte
	for {
		i := bytes.Index(ptx[min(len(ptx), 1):], ptxHeader)
		if i < 0 {
			return append(mods, ptx)
		}
		mods = append(mods, ptx[:i+1])
		ptx = ptx[i+1:]
	}
}

// ptxasEach compiles the modules with args, at most one ptxas per CPU at
// once, and returns the cubins in order and the messages of each in
// order; err is the first module's that failed.
func ptxasEach(ptxas string, args []string, mods [][]byte) ([][]byte, string, error) {
	outs := make([][]byte, len(mods))
	logs := make([]string, len(mods))
	errs := make([]error, len(mods))
	sem := make(chan struct{}, max(runtime.NumCPU(), 1))
	var wg sync.WaitGroup
	for i, m := range mods {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			outs[i], logs[i], errs[i] = runPTXAS(nil, ptxas, args, m)
		}()
	}
	wg.Wait()
	return outs, strings.Join(logs, ""), errors.Join(errs...)
}

// ltoTools are what an LTO step runs: the ptxas (or why there is none),
// the rules of the release (whether it warned about the ptxas's), the
// libnvvm helper.
type ltoTools struct {
	ptxas    string
	ptxasErr error
	rules    *rules
	warned   bool
	helper   string
}

// tools finds the ptxas and the release's rules (the one named, else the
// ptxas's), refusing what that release does not accept, then the helper
// and a usable libnvvm: nvlink loads libnvvm first, whether or not an
// input has IR, and fails before anything else without it.
func (l *LTO) tools(diags *diag.Bag, key func() diag.Key) (*ltoTools, error) {
	t := &ltoTools{}
	t.ptxas, t.ptxasErr = FindPTXAS(l.PTXAS, l.NVVMPath)
	rel := ""
	if t.ptxasErr == nil {
		rel, _ = ptxasRelease(t.ptxas)
	}
	r, warn := rulesFor(l.Release, rel, t.ptxas)
	t.rules = r
	if l.CheckRelease != nil {
		if msg := l.CheckRelease(r.Version); msg != "" {
			diags.Fatalf(key(), "%s", msg)
			return nil, errFatal
		}
	}
	if t.warned = warn != "" && t.ptxasErr == nil; t.warned {
		diags.Warnf(key(), "%s", warn)
	}
	var err error
	if t.helper, err = FindHelper(l.Helper); err == nil {
		err = checkLibrary(t.helper, l.NVVMPath)
	}
	if err != nil {
		diags.Infof(key(), "%v", err)
		diags.Fatalf(key(), "elfLink linker library load error")
		return nil, errFatal
	}
	return t, nil
}

// register is what --register-link-binaries lists: the items with device
// code in order; for a whole program (whole, items the IR inputs) those
// last first, as nvlink 11.8 lists them.
func register(items []item, whole bool) []Module {
	var mods []Module
	for _, it := range items {
		if it.kind != itemNone {
			mods = append(mods, Module{Name: it.name, ModuleID: it.module, IfLinked: it.member && it.kind == itemCode})
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
// the order of nvlink of release r, and returns the -maxrregcount the link
// uses (0: none). nvlink 11.8:
//
//	-arch=compute_T <fp> -link-lto [-maxreg=N] [-generate-line-info]
//	[--device-c] [-g] [--force-device-c | -has-global-host-info]
//
// nvlink 12.5: -arch=compute_T -link-lto [-split-compile[-extended]=N],
// then the same to the host-info option, then the -Xnvvm words and, when
// there are some, the <fp> they do not set. <fp> is the members' -ftz,
// -prec-div, -prec-sqrt, -fma, which must agree.
func (l *LTO) nvvmOptions(r *rules, irs []item, partial, devrt bool, diags *diag.Bag, key func() diag.Key) ([]string, int64, error) {
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
	var fp []string
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
		fp = append(fp, f.nvvm+"="+v)
	}
	opts := []string{fmt.Sprintf("-arch=compute_%d", l.Arch)}
	if r.FPFirst {
		opts = append(opts, fp...)
	}
	opts = append(opts, "-link-lto")
	if r.SplitCompile {
		switch {
		case l.SplitCompileExtended != "":
			if l.SplitCompile != "" {
				diags.Infof(key(), "Incompatible options '-split-compile' and '-split-compile-extended', using '-split-compile-extended'")
			}
			opts = append(opts, "-split-compile-extended="+l.SplitCompileExtended)
		case l.SplitCompile != "":
			opts = append(opts, "-split-compile="+l.SplitCompile)
		}
	}
	maxReg, err := l.maxReg(irs, diags, key)
	if err != nil {
		return nil, 0, err
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
	if words := xnvvmWords(l.Xnvvm); r.Xnvvm && len(words) > 0 {
		own := len(opts)
		for _, w := range words {
			if strings.Contains(w, "=") || !slices.Contains(opts[:own], w) {
				opts = append(opts, w)
			}
		}
		for _, f := range fp {
			name, _, _ := strings.Cut(f, "=")
			if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, name+"=") }) {
				opts = append(opts, f)
			}
		}
	}
	return opts, maxReg, nil
}

// maxReg is the -maxreg the link gives libnvvm: -maxrregcount, else the
// members' (which must agree; objects without it beside objects with it:
// an info line, and it applies to all), else 0.
func (l *LTO) maxReg(irs []item, diags *diag.Bag, key func() diag.Key) (int64, error) {
	if l.MaxRegCount != 0 {
		return l.MaxRegCount, nil
	}
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
			return 0, errFatal
		}
	}
	if len(seen) == 0 {
		return 0, nil
	}
	if missing {
		diags.Infof(key(), "Some objects do not have '-maxrregcount' specified but others do; will build everything with '-maxrregcount=%d'", seen[0])
	}
	return seen[0], nil
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
