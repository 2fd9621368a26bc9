package shard

// This file holds the one function that decides what happens when a global
// name is seen again: Resolve. It is pure and total, so a shard owner can
// fold the candidates for a name in file order and get the same answer as a
// serial link, whatever the thread or shard count.
//
// Where each rule comes from. "seed" means /work/shared/seeds (notes on
// nvlink 13.0); "11.8" means checked by linking hand-written PTX with the
// real CUDA 11.8 nvlink for sm_80 and sm_90 (exit status and exact stderr).
//
//   - Undefined then defined: the definition fills the placeholder in place
//     and keeps its slot (seed: walkthrough step 6, "Upgrade in place").
//   - Defined or common then undefined: nothing changes (seed: walkthrough
//     step 3; 11.8: bss+extern links).
//   - Strong then strong: "Multiple definition of '%s' in '%s', first defined
//     in '%s'" naming the incoming file, then the file that first introduced
//     the name (11.8; seed: matrix "adding global symbols of same name").
//   - Weak then strong: the strong one replaces the weak one; strong then weak:
//     the weak one is dropped (seed: weak symbols, "replace weak function %s";
//     11.8 for data and functions).
//   - Weak function then weak function: strictly fewer registers wins; on
//     equal counts a strictly newer PTX version wins; otherwise the first stays
//     (seed: weak symbols, strategies 1-3; 11.8 on sm_80, where the count is
//     the high byte of the function section's sh_info). On sm_90 ptxas leaves
//     that byte zero and 11.8 keeps the first definition without any message,
//     so a missing count (0) is compared as 0. The seed's 13.0 fatals "no such
//     new reg count" / "no such original reg count" are not reproduced: 11.8
//     does not emit them.
//   - Weak data then weak data: the first stays (11.8).
//   - Common then common: the larger size wins (seed: section merging,
//     "increase size of common %s"; 11.8).
//   - Common and a .nv.global.init definition, either order: the definition
//     wins; if the common is larger, "Common symbol '%s' in file '%s' has
//     larger size than initialization" naming the common's file (seed:
//     "global.init replaces common for %s"; message and order from 11.8).
//   - Common then a .nv.global (uninitialized) strong definition: the
//     definition replaces the common. The reverse order is a multiple
//     definition (11.8; the asymmetry is nvlink's).
//   - Common then weak: the weak one is dropped. Weak then common: the common
//     takes over the storage but the symbol stays STB_WEAK, and the common's
//     file becomes the one named as first definition (11.8).
//   - Data size: when the incoming symbol is not a function and the sizes
//     differ (undefined references included, they carry a size), "Size
//     doesn't match for '%s' in '%s', first specified in '%s'" is an error;
//     resolution then goes on as if the sizes matched (11.8 prints it before
//     the multiple definition message). Common/common and common/init pairs
//     are exempt, as above.
//   - Function against data, or different memory spaces: "Memory space
//     doesn't match for '%s' in '%s', first specified in '%s'", first of all
//     messages (11.8).
//   - The file named as "first defined/specified": the file that created the
//     name's record. An undefined data reference keeps that role after a
//     definition fills it; an undefined function reference hands it to the
//     defining file (11.8: 'ext a b' names ext, 'uf a b' names a).
//   - Address taken (st_other bit 0x08): ORed into the survivor, so no
//     definition whose address was taken is later removed (seed: weak
//     symbols, "Preserve address taken flag"). Applied to every merge, which
//     the seed shows only for weak replacement.

// Kind says whether a symbol is a reference, a tentative (common)
// definition, or a definition in a section.
type Kind uint8

const (
	Undef   Kind = iota // SHN_UNDEF: a reference
	Common              // SHN_COMMON: tentative definition, sized at layout
	Defined             // defined in a section of its file
)

// State is the four-way classification of the resolution matrix.
type State uint8

const (
	StateUndef  State = iota // undefined reference
	StateCommon              // common symbol
	StateWeak                // STB_WEAK definition
	StateStrong              // STB_GLOBAL definition
)

func (s State) String() string {
	switch s {
	case StateUndef:
		return "undef"
	case StateCommon:
		return "common"
	case StateWeak:
		return "weak"
	case StateStrong:
		return "strong"
	}
	return "state?"
}

// OtherAddrTaken is the st_other bit nvlink uses for "address taken".
const OtherAddrTaken = 0x08

// OtherEntry is the st_other bit (STO_CUDA_ENTRY) of a __global__
// function, defined or declared.
const OtherEntry = 0x10

// OtherManaged is the st_other bit ptxas sets on __managed__ data, defined
// or declared (nvcc 11.8: 0x24 where __device__ data has 0x20).
const OtherManaged = 0x04

// Cand is one file's symbol for a global name: the input of Resolve. It is a
// plain value; the shard owners copy it freely.
type Cand struct {
	File       int32  // file ID: position on the command line
	Index      int32  // symbol index in that file
	Kind       Kind   // reference, common or definition
	Weak       bool   // STB_WEAK
	Func       bool   // STT_FUNC
	Init       bool   // data defined in .nv.global.init
	Space      uint8  // memory space of data (st_other's top 3 bits: 1 global, 4 constant; 0 = unknown); compared when both are known
	Other      uint8  // st_other
	Size       uint64 // st_size
	RegCount   uint32 // register count (0 = absent), compared for weak functions
	PTXVersion uint32 // PTX version of the file, compared on equal register counts
}

// unsized reports a reference that gives no size (an extern array
// declared without one: `extern __device__ float t[];`), which any
// definition matches; a reference with a size must match the
// definition's, as definitions must match each other.
func (c Cand) unsized() bool { return c.Kind == Undef && c.Size == 0 }

// State classifies c for the resolution matrix.
func (c Cand) State() State {
	switch {
	case c.Kind == Undef:
		return StateUndef
	case c.Kind == Common:
		return StateCommon
	case c.Weak:
		return StateWeak
	}
	return StateStrong
}

// Sym is the resolved record of a name: the candidate currently standing
// for it, and the file nvlink names as the first definition in messages.
type Sym struct {
	Cand
	First int32
}

// NewSym starts the record of a name first seen as c.
func NewSym(c Cand) Sym { return Sym{Cand: c, First: c.File} }

// Action says what became of the existing record.
type Action uint8

const (
	Keep    Action = iota // the existing definition stays; the incoming one is dropped
	Upgrade               // the incoming definition fills the undefined placeholder, keeping its slot
	Replace               // the incoming definition evicts the existing (weak or common) one
)

func (a Action) String() string {
	switch a {
	case Keep:
		return "keep"
	case Upgrade:
		return "upgrade"
	case Replace:
		return "replace"
	}
	return "action?"
}

// Reason explains a size change or replacement, for -v traces.
type Reason uint8

const (
	NoReason       Reason = iota
	StrongOverWeak        // "replace weak function %s"
	FewerRegs             // "replace weak function %s with weak that uses fewer registers"
	NewerPTX              // "replace weak function %s with weak from newer PTX"
	CommonGrows           // "increase size of common %s"
	InitOverCommon        // "global.init replaces common for %s"
	DefOverCommon         // an uninitialized strong definition replaces a common
	CommonOverWeak        // a common takes over a weak definition's storage
)

// Code identifies a diagnostic produced by Resolve. All are errors; nvlink
// ends the merge with "merge_elf failed" after the file that raised them.
// They are declared in the order nvlink prints them for one symbol
// (CommonLarger takes SizeMismatch's place, and never comes with
// MultipleDef).
type Code uint8

const (
	NoDiag          Code = iota
	SpaceMismatch        // Memory space doesn't match for '%s' in '%s', first specified in '%s'
	ManagedMismatch      // Managed attribute doesn't match for '%s' in '%s', first specified in '%s'
	EntryMismatch        // Function '%s' not declared __global__ in all source files
	SizeMismatch         // Size doesn't match for '%s' in '%s', first specified in '%s'
	MultipleDef          // Multiple definition of '%s' in '%s', first defined in '%s'
	CommonLarger         // Common symbol '%s' in file '%s' has larger size than initialization
)

// Format returns the printf format of c; the first verb is the symbol name,
// then the files in the order of Diag.File and Diag.First.
func (c Code) Format() string {
	switch c {
	case SpaceMismatch:
		return "Memory space doesn't match for '%s' in '%s', first specified in '%s'"
	case ManagedMismatch:
		return "Managed attribute doesn't match for '%s' in '%s', first specified in '%s'"
	case EntryMismatch:
		return "Function '%s' not declared __global__ in all source files"
	case SizeMismatch:
		return "Size doesn't match for '%s' in '%s', first specified in '%s'"
	case MultipleDef:
		return "Multiple definition of '%s' in '%s', first defined in '%s'"
	case CommonLarger:
		return "Common symbol '%s' in file '%s' has larger size than initialization"
	}
	return ""
}

// Files is how many file names c's message takes after the symbol's: 2
// (Diag.File, then Diag.First), 1 (Diag.File) or 0.
func (c Code) Files() int {
	switch c {
	case CommonLarger:
		return 1
	case EntryMismatch:
		return 0
	}
	return 2
}

// Diag is one diagnostic: its code, the file being merged when it was
// raised, and the file it names as first (-1 when the message names
// fewer: Code.Files).
type Diag struct {
	Code  Code
	File  int32
	First int32
}

// Outcome is the result of Resolve. Diags[:NDiag] are in nvlink's order.
type Outcome struct {
	Sym    Sym // the record after the merge
	Action Action
	Reason Reason
	NDiag  uint8
	Diags  [4]Diag
}

func (o *Outcome) add(code Code, file, first int32) {
	o.Diags[o.NDiag] = Diag{Code: code, File: file, First: first}
	o.NDiag++
}

// Resolve merges the incoming candidate in into the record ex of the same
// name. It is pure and total: every pair of inputs has one outcome.
func Resolve(ex Sym, in Cand) Outcome {
	o := Outcome{Sym: ex, Action: Keep}

	if ex.Func != in.Func || (ex.Space != 0 && in.Space != 0 && ex.Space != in.Space) {
		o.add(SpaceMismatch, in.File, ex.First)
	}
	if !ex.Func && !in.Func && (ex.Other^in.Other)&OtherManaged != 0 {
		// Defined or declared, whatever the memory spaces (nvlink 11.8 on
		// nvcc's objects: TestResolveNvlink11).
		o.add(ManagedMismatch, in.File, ex.First)
	}
	if ex.Func && in.Func && (ex.Other^in.Other)&OtherEntry != 0 {
		// A kernel defined or declared in one object, a device function in
		// another (the message names no file).
		o.add(EntryMismatch, in.File, -1)
	}
	exCommonInit := ex.Kind == Common && in.Kind == Defined && in.Init
	inCommonInit := in.Kind == Common && ex.Kind == Defined && ex.Init
	switch {
	case ex.Kind == Common && in.Kind == Common:
	case exCommonInit:
		if ex.Size > in.Size {
			o.add(CommonLarger, ex.File, -1)
		}
	case inCommonInit:
		if in.Size > ex.Size {
			o.add(CommonLarger, in.File, -1)
		}
	case !in.Func && ex.Size != in.Size && !ex.Cand.unsized() && !in.unsized():
		o.add(SizeMismatch, in.File, ex.First)
	}

	replace := func(r Reason, first int32) {
		o.Action, o.Reason = Replace, r
		o.Sym = Sym{Cand: in, First: first}
	}
	switch ex.State() {
	case StateUndef:
		if in.Kind == Undef {
			// Two references: a strong one makes the name strongly
			// referenced (ELF convention, not observable in nvlink).
			o.Sym.Weak = ex.Weak && in.Weak
			break
		}
		first := ex.First
		if in.Func {
			first = in.File
		}
		o.Action = Upgrade
		o.Sym = Sym{Cand: in, First: first}
	case StateCommon:
		switch in.State() {
		case StateCommon:
			if in.Size > ex.Size {
				o.Sym.Size = in.Size
				o.Reason = CommonGrows
			}
		case StateStrong:
			// Even a common that kept a weak binding yields to the
			// strong binding (11.8: weak, common, init gives GLOBAL).
			if in.Init {
				replace(InitOverCommon, ex.First)
			} else {
				replace(DefOverCommon, ex.First)
			}
		}
	case StateWeak:
		switch in.State() {
		case StateCommon:
			replace(CommonOverWeak, in.File)
			o.Sym.Weak = true
		case StateStrong:
			replace(StrongOverWeak, ex.First)
		case StateWeak:
			if !ex.Func || !in.Func {
				break
			}
			if in.RegCount < ex.RegCount {
				replace(FewerRegs, ex.First)
			} else if in.RegCount == ex.RegCount && in.PTXVersion > ex.PTXVersion {
				replace(NewerPTX, ex.First)
			}
		}
	case StateStrong:
		switch in.State() {
		case StateStrong:
			o.add(MultipleDef, in.File, ex.First)
		case StateCommon:
			if !ex.Init {
				o.add(MultipleDef, in.File, ex.First)
			}
		}
	}
	o.Sym.Other |= (ex.Other | in.Other) & OtherAddrTaken
	return o
}
