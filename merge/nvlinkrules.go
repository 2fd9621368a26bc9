package merge

// This file is the one home of the rules warplink follows only because
// nvlink does, in every release it links as (what differs between
// releases is the Release table's: release.go). Two kinds:
//
//   - The keep policy: what -g and --preserve-relocs keep that a plain
//     link drops. keepPolicyFor computes it once from the options and the
//     release (a pure function); the passes ask ctx.keep, never the raw
//     options.
//   - nvlink's artefacts: names, strings and tables nvlink leaves in its
//     output or its messages as by-products of how it works (a section
//     it makes and drops, a misspelt warning). Their values are the
//     constants below; the code uses them by name.
//
// nvlinkRules lists both, each with what nvlink does, why warplink copies
// it and the testdata cases that show it (TestNvlinkRules checks that the
// cases exist and, where an entry says what they show, that they show it).

// keepPolicy is what a link under -g and/or --preserve-relocs keeps that a
// plain link drops. Each field names what is kept; nvlinkRules gives its
// cases. keepPolicyFor is the only place that reads Debug and
// PreserveRelocs for these rules.
type keepPolicy struct {
	// EveryKernelUsed: every kernel is a used kernel, whatever
	// --kernels-used, --variables-used or the host objects say; so no
	// kernel is removed, no TEMP_MERGED_CONSTANTS is made and every
	// kernel gets MIN_STACK_SIZE as a root (-g).
	EveryKernelUsed bool
	// EveryFunction: dead code elimination removes no function (-g,
	// --preserve-relocs).
	EveryFunction bool
	// UncalledPrototypes: .nv.prototype keeps the records of functions no
	// one calls, but the address-taken ones' (-g, --preserve-relocs).
	UncalledPrototypes bool
	// Placeholder: the nameless local function nvlink makes before an
	// object's first new undefined function is kept in the output, and
	// the object's EIATTR_KPARAM_INFO records point at it (-g,
	// --preserve-relocs).
	Placeholder bool
	// SharedSyms: shared variables (an entry's, the module's, a
	// template's winning copy) keep a symbol at the offset layout gives
	// them, those no entry uses too (-g, --preserve-relocs).
	SharedSyms bool
	// SharedInternal: those symbols are STV_INTERNAL (--preserve-relocs
	// without -g).
	SharedInternal bool
	// EntrySharedSym: a module shared variable only one entry uses keeps
	// its symbol in that entry's .nv.shared.<k> (--preserve-relocs; -g
	// where Release.DebugEntryShared); otherwise it goes.
	EntrySharedSym bool
	// EntrySharedInternal: that symbol is STV_INTERNAL (--preserve-relocs;
	// with -g too in nvlink 11.8, not in 12.5 and 13.0:
	// Release.DebugSharedNotInternal).
	EntrySharedInternal bool
	// InternalData: local STV_INTERNAL data (a kernel's _param) keeps its
	// symbol, a replaced weak entry's dropped copy's too
	// (--preserve-relocs).
	InternalData bool
	// ExternSharedSym: an extern __shared__ array gets a symbol in
	// .nv_debug.shared, made when its object is merged (-g,
	// --preserve-relocs); where it ends up is the next two fields'.
	ExternSharedSym bool
	// ExternSharedAtOffset: that symbol holds one offset, the largest of
	// the entries that can run code using it, to which all of them grow;
	// references resolve to it, and no externsharedinstance name is made
	// (-g, --preserve-relocs or not).
	ExternSharedAtOffset bool
	// ExternSharedPastWindow: that symbol is -1 past the reserved window
	// and is kept only when .nv_debug.shared holds variables, on sm_90;
	// .nv_debug.shared keeps its section symbol; code no kernel runs and
	// debug information resolve against it (--preserve-relocs without
	// -g).
	ExternSharedPastWindow bool
	// ResolvedRelocs: the relocations nvlink applies are listed in a
	// .nv.resolvedrela<sec> section per target (--preserve-relocs).
	ResolvedRelocs bool
}

// keepPolicyFor is the keep policy of a link with -g (debug) and
// --preserve-relocs (preserve) as release rel.
func keepPolicyFor(debug, preserve bool, rel *Release) keepPolicy {
	either := debug || preserve
	return keepPolicy{
		EveryKernelUsed:        debug,
		EveryFunction:          either,
		UncalledPrototypes:     either,
		Placeholder:            either,
		SharedSyms:             either,
		SharedInternal:         preserve && !debug,
		EntrySharedSym:         preserve || debug && rel.DebugEntryShared,
		EntrySharedInternal:    preserve && !(debug && rel.DebugSharedNotInternal),
		InternalData:           preserve,
		ExternSharedSym:        either,
		ExternSharedAtOffset:   debug,
		ExternSharedPastWindow: preserve && !debug,
		ResolvedRelocs:         preserve,
	}
}

// setKeepPolicy computes ctx.keep from the options and ctx.Rel: when the
// context is made and again when chooseRelease has chosen the release.
func (ctx *Context) setKeepPolicy() {
	ctx.keep = keepPolicyFor(ctx.Opts.Debug, ctx.Opts.PreserveRelocs, &ctx.Rel)
}

// nvlink's artefacts (nvlinkRules says where each shows).
const (
	// tempMergedConstants is the section nvlink 11.8 makes, and drops,
	// for the module's __constant__ data when it removes unused kernels
	// (Release.MergedConstantsName).
	tempMergedConstants = "TEMP_MERGED_CONSTANTS"
	// externSharedInstance is the .strtab name nvlink adds, with no
	// symbol, when code a kept kernel runs uses extern __shared__ memory
	// (Release.NamesOfDropped).
	externSharedInstance = "externsharedinstance"
	// preserveRelocsWarning is nvlink's warning for --preserve-relocs on
	// sm_90 (only there), "archtecture" as nvlink spells it.
	preserveRelocsWarning = "Option '--preserve-relocs' is not fully implemented for gpu archtecture '%s' and may not work as expected"
	// mergeElfFailed is nvlink's fatal message after the conflicts of
	// resolution (multiple definitions and the like).
	mergeElfFailed = "merge_elf failed"
	// resolvedRela prefixes the name of the sections that list, under
	// --preserve-relocs, the relocations nvlink applied.
	resolvedRela = ".nv.resolvedrela"
	// relCompanion prefixes the name of the relocation sections nvlink
	// creates beside a kernel's constant bank 0 and beside sections
	// whose relocations name data not defined yet, and then drops: only
	// the names stay.
	relCompanion = ".rel"
	// bindlessOff prefixes the .strtab name nvlink makes, with no symbol,
	// for each bound texture or surface reference; moduleBank0 is the
	// module bank it names in both string tables beside them, with no
	// section written.
	bindlessOff = "$NVLINKBINDLESSOFF_"
	moduleBank0 = ".nv.constant0"
)

// relActionTable is the constant .nv.rel.action contents nvlink 11.8 writes
// into every executable (Release.RelAction; observed identical in every
// reference output of the corpus).
var relActionTable = []byte{
	0x4b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x08, 0x10, 0x0a, 0x2f, 0x22,
	0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x30, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x38, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x18, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x20, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x28, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x30, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x38, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x18, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x20, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x28, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x30, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x38, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x14, 0x2c, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00,
}

// addEmptyPrototype adds nvlink's empty prototype string to .strtab, once
// a link: a second empty string, which the call graph's and
// .nv.prototype's records of an empty prototype name (nvlinkRules:
// emptyPrototype).
func (ctx *Context) addEmptyPrototype() {
	if ctx.sawEmptyProto {
		return
	}
	ctx.sawEmptyProto = true
	ctx.addStrDup(ctx.Str, "", &ctx.emptyProto)
}

// nvlinkRule is one entry of the registry.
type nvlinkRule struct {
	Name  string   // what carries it in the code: a constant, a keepPolicy field, a function
	Rule  string   // what nvlink does and why warplink copies it
	Cases []string // testdata cases that show it: "crafted/<case>", "corpus/<toolkit>/<case>"
	Shows string   // where set: bytes the first case's ref.cubin or ref.log holds
}

// nvlinkRules is the registry: every keepPolicy field, then the artefacts.
// A new rule of this kind is one more entry here (and one more field or
// constant), with its cases.
func nvlinkRules() []nvlinkRule {
	return []nvlinkRule{
		{Name: "keepPolicy.EveryKernelUsed",
			Rule:  "-g makes every kernel a used kernel: --kernels-used, --variables-used and the host objects' lists are ignored, so no kernel goes and none is a non-root for MIN_STACK_SIZE.",
			Cases: []string{"crafted/kernels-used-debug", "crafted/debug-flag-keeps-functions"}},
		{Name: "keepPolicy.EveryFunction",
			Rule:  "-g and --preserve-relocs remove no function (dead code elimination marks every defined function); an undefined function only an uncalled one calls is then reported.",
			Cases: []string{"crafted/debug-flag-keeps-functions", "crafted/debug-flag-undefined", "crafted/kernels-used-preserve-relocs"}},
		{Name: "keepPolicy.UncalledPrototypes",
			Rule:  "-g and --preserve-relocs keep the .nv.prototype records of functions no one calls, not the address-taken ones'.",
			Cases: []string{"crafted/debug-flag-virtual", "corpus/cuda11.8-sm_90/virtual"}},
		{Name: "keepPolicy.Placeholder",
			Rule:  "-g and --preserve-relocs keep the nameless local function nvlink makes before an object's first new undefined function (not for a kernel), and point the object's EIATTR_KPARAM_INFO records at it; --dump-callgraph prints it as ' ->'.",
			Cases: []string{"crafted/debug-flag-placeholder", "crafted/placeholder-after-entry-debug", "corpus/cuda11.8-sm_90/xcall"}},
		{Name: "keepPolicy.SharedSyms",
			Rule:  "-g and --preserve-relocs keep a symbol for shared variables at the offset layout gives them: an entry's own, the module's several entries share (in .nv_debug.shared, which spans every layer), the unused ones, a template's winning copy.",
			Cases: []string{"crafted/debug-flag-keeps-functions", "crafted/debug-flag-module-shared", "crafted/debug-flag-shared-unused", "crafted/preserve-relocs-shared-unused", "crafted/debug-flag-weak-shared"}},
		{Name: "keepPolicy.SharedInternal",
			Rule:  "--preserve-relocs without -g marks those symbols STV_INTERNAL.",
			Cases: []string{"crafted/preserve-relocs-module-shared", "crafted/preserve-relocs-shared-unused"}},
		{Name: "keepPolicy.EntrySharedSym",
			Rule:  "A module shared variable one entry uses keeps its symbol, in that entry's .nv.shared.<k>, under --preserve-relocs, and under -g where the release says so (Release.DebugEntryShared: nvlink 12.5's sweep shared-chain and the like); else it goes.",
			Cases: []string{"crafted/preserve-relocs-module-shared"}},
		{Name: "keepPolicy.EntrySharedInternal",
			Rule:  "Under --preserve-relocs that symbol is STV_INTERNAL, -g or not.",
			Cases: []string{"crafted/preserve-relocs-module-shared"}},
		{Name: "keepPolicy.InternalData",
			Rule:  "--preserve-relocs keeps local STV_INTERNAL data's symbols (a kernel's _param), a replaced weak entry's dropped copy's too, in the section of that name the kept copy fills.",
			Cases: []string{"crafted/preserve-relocs-weak-param"}},
		{Name: "keepPolicy.ExternSharedSym",
			Rule:  "-g and --preserve-relocs give an extern __shared__ array a global symbol in .nv_debug.shared, and .nv_debug.shared its section symbol, when the object naming the array is merged.",
			Cases: []string{"crafted/debug-flag-extern-shared", "crafted/preserve-relocs-extern-shared"}},
		{Name: "keepPolicy.ExternSharedAtOffset",
			Rule:  "Under -g that symbol holds the largest offset of the entries that can run code using the array, to which they all grow (past the reserved window when .nv_debug.shared holds variables); code and, with --preserve-relocs, debug information resolve against it.",
			Cases: []string{"crafted/debug-flag-extern-shared", "crafted/debug-flag-extern-shared-common", "crafted/debug-flag-extern-unused", "crafted/preserve-relocs-debug-extern"}},
		{Name: "keepPolicy.ExternSharedPastWindow",
			Rule:  "Under --preserve-relocs alone that symbol is -1 past the reserved window and is kept only when .nv_debug.shared holds variables (sm_90: sm_80 has no window); .nv_debug.shared keeps its section symbol; code no kernel runs and debug information resolve against the symbol.",
			Cases: []string{"crafted/preserve-relocs-extern-kept", "crafted/preserve-relocs-extern-unreached", "crafted/preserve-relocs-extern-debug", "crafted/preserve-relocs-extern-shared", "crafted/extern-shared-module"}},
		{Name: "keepPolicy.ResolvedRelocs",
			Rule:  "--preserve-relocs lists the relocations nvlink applies in a .nv.resolvedrela<sec> section per target, named right after the kept relocations' section; a bound reference's slot is not listed.",
			Cases: []string{"crafted/preserve-relocs", "crafted/preserve-relocs-resolved-order", "crafted/preserve-relocs-bound-references", "crafted/preserve-relocs-empty-first"},
			Shows: resolvedRela},

		{Name: "tempMergedConstants",
			Rule:  "Removing unused kernels in a link with __constant__ data, nvlink 11.8 makes (and drops) a section TEMP_MERGED_CONSTANTS: its name is in both string tables (Release.MergedConstantsName).",
			Cases: []string{"crafted/merged-constants-name"},
			Shows: tempMergedConstants},
		{Name: "Context.nullSymValue",
			Rule:  "nvlink 11.8 leaves a value in the null symbol's st_value from its constant deduplication: under TEMP_MERGED_CONSTANTS the last constant alone in its bank's (lastSingleConstant), and a replaced weak copy's first constant's offset (funcbank.go).",
			Cases: []string{"crafted/merged-constants-null-symbol"}},
		{Name: "externSharedInstance",
			Rule:  "nvlink adds the name externsharedinstance to .strtab, with no symbol, when code a kept kernel runs uses extern __shared__ memory; not when --kernels-used removed it, nor under -g (Release.NamesOfDropped: 11.8 only).",
			Cases: []string{"crafted/extern-shared", "crafted/extern-shared-unused"},
			Shows: externSharedInstance},
		{Name: "Context.addEmptyPrototype",
			Rule:  "nvlink adds a second empty string to .strtab at the first undefined function of a link (not a kernel) or the first empty prototype of a call graph, whichever comes first; the call graph's and .nv.prototype's empty-prototype records name it.",
			Cases: []string{"crafted/empty-prototype", "crafted/empty-prototype-undefined", "crafted/placeholder-after-entry-plain", "crafted/placeholder-after-entry"}},
		{Name: "relActionTable",
			Rule:  "nvlink 11.8 writes the same .nv.rel.action into every output (Release.RelAction; 12.5's is relAction125).",
			Cases: []string{"corpus/cuda11.8-sm_90/xcall", "crafted/extern-shared"},
			Shows: string(relActionTable)},
		{Name: "preserveRelocsWarning",
			Rule:  "--preserve-relocs draws nvlink's warning, misspelling and all, for sm_90 only (nothing for sm_52 to sm_89).",
			Cases: []string{"crafted/preserve-relocs", "crafted/preserve-relocs-sm80"},
			Shows: "gpu archtecture 'sm_90'"},
		{Name: "relCompanion",
			Rule:  "nvlink creates a .rel<sec> section beside each kernel's .nv.constant0.<k> and beside a section whose relocations name data not defined yet (the other kind's name for a non-allocated one resolved at link time), then drops it; the names stay in both string tables (sm_80's RELA shared-memory references name none).",
			Cases: []string{"crafted/constant-refs", "crafted/rela-shared-sm80", "crafted/debug-line-functions"},
			Shows: ".rel.nv.constant0"},
		{Name: "bindlessOff",
			Rule:  "Bound texture and surface references (pre-CUDA 12) make a $NVLINKBINDLESSOFF_<name> name per reference in .strtab and the module bank's name .nv.constant0 in both tables, with no symbol or section, even when no kept kernel uses them.",
			Cases: []string{"crafted/bound-references-unused", "crafted/bound-references"},
			Shows: bindlessOff},
		{Name: "mergeElfFailed",
			Rule:  "After the conflicts resolution reports (multiple definitions and the like), nvlink stops with merge_elf failed, under the file that raised the last one.",
			Cases: []string{"crafted/multiple-definition"},
			Shows: mergeElfFailed},
	}
}
