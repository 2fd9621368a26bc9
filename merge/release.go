package merge

import (
	"fmt"
	"strings"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/linkflags"
)

// Release is what one nvlink release does differently from the others:
// every rule that differs between the releases warplink links as is a
// named field here, and the passes ask ctx.Rel, never a version number.
// One value per release (nvlink118, nvlink124, nvlink125, nvlink130); the driver
// picks one once, after read (chooseRelease), from --nvlink-version or the
// toolkit the newest input was built with.
type Release struct {
	Name    string // "12.5", as -V and the warnings print it
	Version int    // 125: how the inputs' headers and nvlink's messages write it

	// ELFVersion is the output's e_version (the toolkit's, 125 for nvlink
	// 12.5, whatever its inputs': an 11.8 sm_80 cubin linked with a 12.5
	// one gives 125); 0 keeps the first input's, as nvlink 11.8's corpus
	// outputs do.
	ELFVersion uint32

	// MinSM90Toolkit: inputs for sm_90 built by an older toolkit are
	// refused ("Input file '<f>' must be recompiled with toolkit >= Cuda
	// 12.0", exit 1; nvlink 12.5 with an 11.8 sm_90 cubin, while 11.8
	// sm_80 cubins link). 0: no such rule.
	MinSM90Toolkit int

	// ABI8Refusal is how the release refuses an input of CUDA 13's ELF
	// ABI (EI_OSABI 0x41, version 8): "abi" ("Input file '<f>' abi does
	// not match", exit 1: nvlink 12.5), "arch" (a warning that the object
	// lacks EF_CUDA_64BIT_ADDRESS, then "Input file '<f>' arch does not
	// match target '<arch>'", exit 1: nvlink 11.8); "" links it.
	ABI8Refusal string

	// DropUnifiedTables: the weak undefined __UFT/__UDT symbols (and
	// their _OFFSET, _CANONICAL, _END variants) that ptxas 12.x puts in
	// every sm_90 object get no output symbol; their names stay in
	// .strtab (corpus cuda12.5-sm_90, every program).
	DropUnifiedTables bool

	// InfoLink sets SHF_INFO_LINK (0x40) on the .nv.info.<f> sections,
	// every relocation section (and --preserve-relocs'
	// .nv.resolvedrela ones) and a kernel's .nv.shared.<k> (corpus
	// cuda12.5-*; infoLinked).
	InfoLink bool

	// TextRegcount: an entry's propagated register count also goes into
	// the top byte of its .text section's sh_info (nvlink 11.8; 12.5
	// keeps the input's sh_info).
	TextRegcount bool

	// IndirectEdges: the call edges (list -1) from an indirect call site
	// to every address-taken function of its prototype are written (nvlink
	// 11.8); 12.5 and 13.0 write none (corpus funcptr, virtual), though
	// they still follow them (a kernel calling through a table of
	// functions gets their barrier count: sweep barrier-fp).
	IndirectEdges bool

	// EmptyCallList4: the call graph always ends with list -4's marker,
	// empty or not (nvlink 12.5); 11.8 writes it only for inputs that
	// have one.
	EmptyCallList4 bool

	// NamesOfDropped: the names of input symbols that get no output
	// symbol (shared variables, a replaced weak entry's _param, undefined
	// locals) still enter .strtab (nvlink 11.8); 12.5 leaves them out
	// (corpus cuda12.5-sm_90 shared).
	NamesOfDropped bool

	// List4AsCalls: list -4 (indirect call site, possible callee) is
	// ordered as the call edges are, each site's callees latest first
	// (nvlink 12.5, corpus virtual); 11.8 keeps the inputs' order.
	List4AsCalls bool

	// UnifiedAbs: kept relocations of the unified (R_CUDA_UNIFIED*) kinds
	// are written as these absolute ones (nvlink 12.5: R_CUDA_UNIFIED as
	// R_CUDA_64 in a table of function pointers or a virtual table,
	// corpus cuda12.5-sm_90 funcptr and virtual; R_CUDA_UNIFIED32_LO_32
	// and _HI_32 as R_CUDA_ABS32_LO_32 and _HI_32, a function's address
	// taken in code: sweep fp-kernel-arg, fp-table). The relocations
	// against the symbols DropUnifiedTables leaves out go with them.
	UnifiedAbs map[uint32]uint32

	// MergedConstantsName: removing unused kernels in a link with
	// __constant__ data names a section TEMP_MERGED_CONSTANTS in both
	// string tables (nvlink 11.8, crafted merged-constants-name); 12.5
	// does not (corpus cuda12.5-* constants and shared with
	// --kernels-used).
	MergedConstantsName bool

	// DebugEntryShared: under -g alone, a module shared variable one
	// entry uses keeps its symbol, in that entry's .nv.shared.<k> at its
	// offset, as --preserve-relocs keeps it (but for STV_INTERNAL): nvlink
	// 12.5 (sweep shared-callee, shared-chain and five more, -G objects
	// linked with -g); 11.8 drops it.
	DebugEntryShared bool

	// DebugSharedNotInternal: under -g --preserve-relocs that symbol
	// keeps st_other 0, as -g alone leaves it (nvlink 12.5); 11.8 marks
	// it STV_INTERNAL as --preserve-relocs alone does (crafted
	// preserve-relocs-debug-module-shared and its nvlink12.5/ record;
	// cuda-samples threadFenceReduction -G with CUDA 12.5).
	DebugSharedNotInternal bool

	// LocalByBinding: an object of CUDA 13's ABI, whose .symtab sh_info
	// counts every symbol (ptxas 13.0 puts locals after globals), has its
	// local symbols and its defined weak ones for local part (nvlink
	// 13.0: the output lists them first, in input order; corpus
	// cuda13.0-sm_90, weakregs and virtual for the weak ones).
	LocalByBinding bool

	// ReservedSmemGlobal: the weak undefined .nv.reservedSmem.offset0
	// that ptxas 13.0 puts in every object is written global, with the
	// input's size (4) (nvlink 13.0: every output of corpus
	// cuda13.0-sm_90); otherwise it keeps its binding and size 0.
	ReservedSmemGlobal bool

	// ToolNote: nvlink's version and build lines ("Cuda compilation
	// tools, release 13.0, V13.0.88", "Build cuda_13.0.r13.0/compiler.
	// 36424714_0"); set, .note.nv.tkinfo starts with a note of nvlink's
	// own with them and the command line's options (toolNote; nvlink
	// 13.0, every output of corpus cuda13.0-sm_90). Which options come
	// in which order is known for -arch, -m, -l, -L and -cpu-arch only
	// (internal/cli/toolnote.go).
	ToolNote [2]string

	// CompatDrop: .nv.compat is written once, without the records of
	// these attributes (nvlink 13.0 drops 0x0b: corpus cuda13.0-sm_90,
	// whose inputs all have the same table, so that "the first input's"
	// is a guess: compatOnce); nil concatenates the inputs' tables.
	CompatDrop []uint8

	// InputOrder: the sections of each kind (non-allocated; allocated,
	// by type) and the local symbols are in the order of the inputs they
	// come from (each input's section and symbol order, the inputs in
	// link order), what the link generates after (nvlink 13.0: corpus
	// cuda13.0-sm_90, where ptxas 13.0 puts the notes' and the module
	// constants' section symbols among the code's; release130.go).
	InputOrder bool

	// LaterLocalsLast: under InputOrder, a local symbol of an input
	// defined in a section an earlier input made goes after that input's
	// other local symbols (nvlink 13.0: corpus cuda13.0-sm_90 printf,
	// b.cubin's $str in .nv.global.init after its .text._Z5twicef, though
	// ptxas lists it before, while a.cubin's $str, in the section a.cubin
	// brings first, stays after the section's symbol).
	LaterLocalsLast bool

	// LocalCodeWithFunction: under InputOrder, a local function's code
	// section is made where the function's symbol is when ptxas lists
	// that before the section's symbol, with the function's
	// .nv.shared.<f> after it: the sections, their symbols (after the
	// function's), their names and the functions' .nv.info.<f> in that
	// order (nvlink 13.0: corpus cuda13.0-sm_90 cdp, libcudadevrt's
	// static memset_3d_device and memcpy_3d_device kernels, whose
	// symbols ptxas 13.0 lists in the opposite order of their sections
	// and section symbols).
	LocalCodeWithFunction bool

	// FlagsTop maps the top byte of a CUDA 13 ABI first input's e_flags
	// to the output's: nvlink 13.0 writes the -G objects' 0x0e as 0x11
	// (corpus debug; the only example of -G objects, so the rule behind
	// it is a guess) and keeps the others' 0x06.
	FlagsTop map[uint32]uint32

	// DropLoserDebugRelocs: the relocations of debug sections (the
	// .debug_frame entries) against a weak function's copy that another
	// file's replaced are dropped (nvlink 13.0: corpus weakregs, as the
	// seeds' weak-function cleanup says); 11.8 and 12.5 keep them, against
	// the kept copy (crafted weak-loser-cleanup, and its nvlink12.5
	// record).
	DropLoserDebugRelocs bool

	// RelAction is the .nv.rel.action section's constant contents.
	RelAction []byte

	// StrtabSymbolsLast: .strtab holds the prototype strings first, then
	// the names of sections as nvlink 11.8 adds them, then the global
	// symbols' names in creation order (nvlink 12.5); 11.8 adds every
	// name as it creates the section or symbol.
	StrtabSymbolsLast bool

	// BankBeforeRel: a kernel's .nv.constant0.<k> name enters .shstrtab
	// before its .rel.nv.constant0.<k> companion (nvlink 12.5 and 13.0;
	// 11.8 adds the companion first, and so do all three in .strtab).
	BankBeforeRel bool
}

// reservedSmemName is the undefined symbol ptxas 13.0 puts in every object
// (Release.ReservedSmemGlobal).
const reservedSmemName = ".nv.reservedSmem.offset0"

// unifiedAbs125 maps R_CUDA_UNIFIED, R_CUDA_UNIFIED32_LO_32 and
// R_CUDA_UNIFIED32_HI_32 to R_CUDA_64, R_CUDA_ABS32_LO_32 and
// R_CUDA_ABS32_HI_32 (Release.UnifiedAbs).
var unifiedAbs125 = map[uint32]uint32{102: 2, 112: 56, 113: 57}

// relAction125 is the .nv.rel.action nvlink 12.5 writes for sm_80 and
// sm_90 alike (every output of corpus cuda12.5-*): one entry.
var relAction125 = []byte{
	0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x11, 0x25, 0x00, 0x05, 0x36,
}

// The releases. A rule a field names but a release's value leaves out
// is the other way (false, nil, 0): see each field.
var (
	nvlink118 = Release{
		Name: "11.8", Version: 118,
		ABI8Refusal:         "arch",
		TextRegcount:        true,
		IndirectEdges:       true,
		NamesOfDropped:      true,
		MergedConstantsName: true,
		RelAction:           relActionTable,
	}
	nvlink125 = Release{
		Name: "12.5", Version: 125, ELFVersion: 125,
		MinSM90Toolkit:         120,
		ABI8Refusal:            "abi",
		DropUnifiedTables:      true,
		InfoLink:               true,
		EmptyCallList4:         true,
		List4AsCalls:           true,
		UnifiedAbs:             unifiedAbs125,
		DebugEntryShared:       true,
		DebugSharedNotInternal: true,
		RelAction:              relAction125,
		StrtabSymbolsLast:      true,
		BankBeforeRel:          true,
	}
	// nvlink124 is nvlink125 with 12.4's version and e_version (the
	// corpus built by CUDA 12.4, testdata/corpus/cuda12.4-sm_90 and
	// -sm_80, with nvlink 12.4's outputs, shows no other difference in
	// the bytes), but for refusing a CUDA 13 object as 11.8 does
	// (checked against nvlink 12.4: TestReleaseChoice).
	nvlink124 = func() Release {
		r := nvlink125
		r.Name, r.Version, r.ELFVersion = "12.4", 124, 124
		r.ABI8Refusal = "arch"
		return r
	}()
	// nvlink130 is nvlink125 where the corpus of CUDA 13.0
	// (testdata/corpus/cuda13.0-sm_90) shows 12.5's rules, plus its own
	// from LocalByBinding to FlagsTop (release130.go). Its refusals are
	// not checked (no nvlink 13.0 here), so it has none, and its
	// e_version is the first input's.
	nvlink130 = func() Release {
		r := nvlink125
		r.Name, r.Version, r.ELFVersion = "13.0", 130, 0
		r.MinSM90Toolkit, r.ABI8Refusal = 0, ""
		r.LocalByBinding, r.ReservedSmemGlobal, r.InputOrder, r.DropLoserDebugRelocs = true, true, true, true
		r.LaterLocalsLast, r.LocalCodeWithFunction = true, true
		r.FlagsTop = map[uint32]uint32{0x0e: 0x11}
		r.ToolNote = [2]string{"Cuda compilation tools, release 13.0, V13.0.88", "Build cuda_13.0.r13.0/compiler.36424714_0"}
		r.CompatDrop = []uint8{0x0b}
		return r
	}()
)

// releases are the known releases, oldest first.
var releases = []*Release{&nvlink118, &nvlink124, &nvlink125, &nvlink130}

// ReleaseNames lists the releases --nvlink-version accepts by name.
func ReleaseNames() []string {
	var l []string
	for _, r := range releases {
		l = append(l, r.Name)
	}
	return l
}

// releaseFor is the known release that links as nvlink of version v
// (125) does: of v's major version, the nearest at or above v, else the
// newest; without one of that major, the newest below v, else the oldest.
func releaseFor(v int) *Release {
	var same, below *Release
	for _, k := range releases {
		if k.Version/10 == v/10 && (same == nil || same.Version < v) {
			same = k
		}
		if k.Version <= v {
			below = k
		}
	}
	switch {
	case same != nil:
		return same
	case below != nil:
		return below
	}
	return releases[0]
}

// toolkitOf is the toolkit version an input cubin records: e_version for
// the CUDA 11 and 12 ELF ABI (118, 125); for CUDA 13's (EI_OSABI 0x41,
// whose e_version is 1) the "release 13.0" of ptxas's line in
// .note.nv.tkinfo, 130 without one.
func toolkitOf(f *elf.File) int {
	if f.Header.Ident[7] != 0x41 {
		return int(f.Header.Version)
	}
	for i := range f.Sections {
		if s := &f.Sections[i]; f.SecNameIs(i, ".note.nv.tkinfo") {
			if _, rest, ok := strings.Cut(string(s.Data()), "release "); ok {
				if v, _, ok := strings.Cut(rest, ","); ok {
					if n, ok := linkflags.ParseVersion(v); ok && n >= 130 {
						return n
					}
				}
			}
		}
	}
	return 130
}

// chooseRelease sets ctx.Rel after read: the release --nvlink-version
// names, else the one of the newest input's toolkit (with a warning when
// no known release is that new). Then the release's refusals, in file
// order, the first fatal: an input newer than the release, an sm_90
// input older than MinSM90Toolkit.
func chooseRelease(ctx *Context) error {
	newest := 0
	for _, o := range ctx.Objs {
		newest = max(newest, toolkitOf(o.F))
	}
	if v := ctx.Opts.NvlinkVersion; v != "" {
		// Named: the rules of the nearest release, under the number
		// given, which its refusals print ("(125 vs 124)").
		n, ok := linkflags.ParseVersion(v)
		if !ok {
			ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, -1, 0), "Value '%s' is not defined for option 'nvlink-version'", v)
			return errFatal
		}
		ctx.Rel = *releaseFor(n)
		ctx.Rel.Version, ctx.Rel.Name = n, fmt.Sprintf("%d.%d", n/10, n%10)
	} else if newest > 0 {
		ctx.Rel = *releaseFor(newest)
		if newest > ctx.Rel.Version {
			ctx.Diags.Warnf(diag.At(diag.PhaseInputs, -1, 1), "inputs built by CUDA %d.%d, newer than any nvlink warplink knows: linking as nvlink %s",
				newest/10, newest%10, ctx.Rel.Name)
			ctx.Rel.Version = newest // (so that they are not refused as newer)
		}
	}
	if ctx.Opts.CheckRelease != nil {
		if msg := ctx.Opts.CheckRelease(ctx.Rel.Version); msg != "" {
			ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, -1, 0), "%s", msg)
			return errFatal
		}
	}
	ctx.setKeepPolicy()
	for _, o := range ctx.Objs {
		o.localByBinding = ctx.Rel.LocalByBinding && o.F.Header.Ident[7] == 0x41
	}
	if ctx.Rel.InputOrder {
		ctx.inOrder = &inputOrder{secSyms: map[int32][]int32{}}
	}
	for _, o := range ctx.Objs {
		t := toolkitOf(o.F)
		abi8 := o.F.Header.Ident[7] == 0x41
		switch {
		case abi8 && ctx.Rel.ABI8Refusal == "abi":
			ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, o.ID, 0), "Input file '%s' abi does not match", o.Name)
			return errFatal
		case abi8 && ctx.Rel.ABI8Refusal == "arch":
			ctx.Diags.Warnf(diag.At(diag.PhaseInputs, o.ID, 0), "expected 64bit object '%s' to have EF_CUDA_64BIT_ADDRESS set", o.Name)
			ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, o.ID, 1), "Input file '%s' arch does not match target '%s'", o.Name, ctx.Opts.Arch)
			return errFatal
		case t > ctx.Rel.Version:
			ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, o.ID, 0), "Input file '%s' newer than toolkit (%d vs %d)", o.Name, t, ctx.Rel.Version)
			return errFatal
		case ctx.Rel.MinSM90Toolkit > 0 && t < ctx.Rel.MinSM90Toolkit && o.F.Header.SM() >= 90:
			ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, o.ID, 0), "Input file '%s' must be recompiled with toolkit >= Cuda %d.%d",
				o.Name, ctx.Rel.MinSM90Toolkit/10, ctx.Rel.MinSM90Toolkit%10)
			return errFatal
		}
	}
	return nil
}
