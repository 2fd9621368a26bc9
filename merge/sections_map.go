package merge

// The section step of merge: each input section maps to an output section,
// created on first use in nvlink's order, and its data is appended.

import (
	"strings"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
)

// secVia is what brought an input section into the link, which decides
// what nvlink makes beside the output section it creates for it.
type secVia uint8

const (
	// viaSectionSym: a section symbol: the output section gets a section
	// symbol and, for a kernel's constant bank 0, nvlink's ".rel"
	// companion name.
	viaSectionSym secVia = iota
	// viaDataSym: a data symbol: the section symbol, no ".rel" name.
	viaDataSym
	// viaNoSym: no symbol named the section (merge's section pass): no
	// section symbol either (nvlink only adds its name to .strtab); the
	// ".rel" name as viaSectionSym.
	viaNoSym
)

// mapSection maps input section i of o to its output section, creating it
// when new, and appends the input's contribution.
func mapSection(ctx *Context, o *Obj, i int) int32 {
	return mapSectionFrom(ctx, o, i, viaSectionSym)
}

// mapSectionFrom is mapSection for a section brought in as via says.
func mapSectionFrom(ctx *Context, o *Obj, i int, via secVia) int32 {
	if o.SecMap[i] >= 0 {
		return o.SecMap[i]
	}
	return mapSectionTo(ctx, o, i, newOutSection(ctx, o, i, via))
}

// mapSectionTo appends input section i of o to output section id.
func mapSectionTo(ctx *Context, o *Obj, i int, id int32) int32 {
	in := &o.F.Sections[i]
	sec := ctx.Secs[id]
	if len(sec.Pieces()) > 0 && isCUInfoNote(o.F, i) {
		// One note stands for all (see isCUInfoNote).
		o.SecMap[i] = id
		o.setSecOff(i, 0)
		return id
	}
	if _, nobits := outType(in); nobits != sec.Nobits && in.Size > 0 {
		// Only a malformed input merges a section without file contents
		// into one with contents of the same name, or the other way
		// round: the first would be written as zeros of its whole size
		// (a fuzzed cubin: 23 GB), the second would lose its contents.
		// nvlink 11.8 fails on such inputs with an internal error or a
		// crash; this names the section instead.
		this, earlier := "has", "has none"
		if nobits {
			this, earlier = "has no", "has"
		}
		ctx.Diags.Fatalf(diag.At(diag.PhaseMerge, o.ID, i), "Section '%s' in '%s' %s file contents, but an earlier section of that name %s", o.F.SecName(i), o.Name, this, earlier)
		o.SecMap[i] = id
		return id
	}
	if len(sec.Pieces()) == 0 && sec.LinkSymtab && in.Flags&elf.SHFExecInstr != 0 {
		// The first code into the section: a weak function's stand-in
		// (standIn) brought none, and the later definition that replaces
		// it brings its own register count (sm_80's sh_info high byte:
		// testdata/crafted/weak-later-wins).
		sec.InfoExtra = uint8(in.Info >> 24)
	}
	align := uint64(max(in.Addralign, 1))
	sec.Align = max(sec.Align, align)
	// Every section concatenates its inputs, .nv.global and the shared
	// constant banks too: one definition of each symbol stays (resolve),
	// and nvlink 11.8 lays the files' pieces end to end (corpus globals and
	// constants, byte-identical).
	off := alignUp(sec.Size, align)
	if p := (Piece{Obj: int32(o.ID), Sec: int32(i), Offset: off}); !sec.pieced {
		sec.one[0] = p
		ctx.setPieces(sec, sec.one[:])
	} else {
		l := sec.Pieces()
		if len(l) == cap(l) {
			// Doubled, not grown by a quarter as append grows a long
			// slice: a section every object brings (.debug_frame, a
			// piece an object) is copied into fresh memory log2(n)
			// times, its discarded arrays together no larger than it.
			l = append(make([]Piece, 0, 2*len(l)), l...)
		}
		ctx.setPieces(sec, append(l, p))
	}
	sec.Size = off + in.Size
	o.SecMap[i] = id
	o.setSecOff(i, off)
	return id
}

// newOutSection returns the output section input section i of o goes to,
// creating it (with its name, its section symbol and, for a kernel's
// constant bank, nvlink's ".rel" companion name) when it is the first of
// its name.
func newOutSection(ctx *Context, o *Obj, i int, via secVia) int32 {
	name, h := ctx.sectionHash(o, i)
	if id, ok := ctx.secNames.find(ctx.Secs, h, name); ok {
		return id
	}
	return makeOutSectionNew(ctx, o, i, via, name, h, true)
}

// makeOutSection creates the output section for input section i of o
// (newOutSection), even when one of its name exists: the name then keeps
// naming the first.
func makeOutSection(ctx *Context, o *Obj, i int, via secVia) int32 {
	name, h := ctx.sectionHash(o, i)
	_, filed := ctx.secNames.find(ctx.Secs, h, name)
	return makeOutSectionNew(ctx, o, i, via, name, h, !filed)
}

// makeOutSectionNew is makeOutSection with the section's name, decoded
// once by its caller, and its hash h; file: no section has that name yet,
// and the new one is filed under it.
func makeOutSectionNew(ctx *Context, o *Obj, i int, via secVia, name string, h uint32, file bool) int32 {
	in := &o.F.Sections[i]
	typ, nobits := outType(in)
	// (Field by field into the fresh record, which allocSec gives zero:
	// an OutSec built whole and copied in was a store-forwarding stall.)
	sec := ctx.allocSec()
	sec.ID, sec.Name, sec.Type, sec.Flags = int32(len(ctx.Secs)), name, typ, o.F.SecFlags(i)
	sec.Align, sec.Nobits = uint64(in.Addralign), nobits
	sec.InfoSym, sec.InfoSec, sec.SymID = -1, -1, -1
	ctx.setEntsize(sec, in.Entsize)
	if in.Type == elf.SHTProgbits && in.Flags&elf.SHFExecInstr != 0 {
		sec.LinkSymtab = true
		sec.InfoExtra = uint8(in.Info >> 24)
	} else if in.Info != 0 && int(in.Info) < len(o.F.Sections) {
		// Per-kernel data (.nv.constant0.<k>, .nv.shared.<k>) names its
		// kernel's code section.
		sec.infoObj, sec.infoIn = int32(o.ID), int32(in.Info)
	}
	ctx.Secs = appendRecord(ctx.Secs, sec)
	id := sec.ID
	if file {
		ctx.secNames.set(ctx.Secs, h, id)
	}
	ctx.noteSecName(id, name)
	ctx.addStr(ctx.ShStr, name, &sec.nameOff)
	// nvlink creates a .rel section beside each constant bank it makes.
	// (Only the per-kernel bank 0: no nvlink 11.8 output of the corpus or
	// the crafted cases names ".rel.nv.constant<n>" for another bank,
	// weak-loser-cleanup's bank 3 brought by its section symbol included.)
	if via != viaDataSym && strings.HasPrefix(name, ".nv.constant0") {
		ctx.addJoinedSecName("", preRel, name, -1) // relCompanion
	}
	// A section brought in by a symbol gets a local section symbol.
	ctx.keySection(id, o, i)
	if via != viaNoSym {
		sec.SymID = newSecSym(ctx, name, id, int32(o.ID))
		ctx.keySectionSymbol(sec.SymID, id)
	} else {
		ctx.addStr(ctx.Str, name, nil)
	}
	return id
}

// isCUInfoNote reports the note on the CUDA version and architecture
// that objects of CUDA 12 and later carry (.note.nv.cuinfo, one 32-byte
// note). The output keeps the first object's: nvlink 13.0 writes one note
// for all its inputs (the corpus built with CUDA 13.0), and nvdisasm 13.0
// refuses a section of several ("Invalid note section"), as warplink wrote
// when it concatenated them. Objects of CUDA 11.8 have none.
func isCUInfoNote(f *elf.File, i int) bool {
	return f.Sections[i].Type == elf.SHTNote && f.SecNameIs(i, cuinfoName)
}

// alignUp is v rounded up to a multiple of a (0 and 1: v). (A power of
// two, as alignments almost always are, by a mask: the division took
// tens of cycles a section in the writer's serial layout.)
func alignUp(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	if a&(a-1) == 0 {
		return (v + a - 1) &^ (a - 1)
	}
	return (v + a - 1) / a * a
}

// joinName returns a+b in the bytes of nameSlab, shared by many names in
// memory the collector does not scan: a kernel's .nv.shared.<k> name (one
// per kernel, kept by its section and section symbol) would otherwise be
// a heap object of its own that every collection marks. The slabs double
// from 256 bytes (slabCap) so that a small link allocates about what it
// uses.
func (ctx *Context) joinName(a, b string) string {
	n := len(a) + len(b)
	if n == 0 || n > nameSlabBytes/8 {
		return a + b
	}
	if n > cap(ctx.nameSlab)-len(ctx.nameSlab) {
		ctx.nameSlab = make([]byte, 0, slabCap(max(cap(ctx.nameSlab), 128), nameSlabBytes))
	}
	start := len(ctx.nameSlab)
	ctx.nameSlab = append(append(ctx.nameSlab, a...), b...)
	return unsafe.String(&ctx.nameSlab[start], n)
}

// dropName gives back the bytes of n, joinName's last name, when the
// link keeps no reference to it (a name made only to look a section up),
// so that the slab holds only names the link keeps.
func (ctx *Context) dropName(n string) {
	end := len(ctx.nameSlab)
	if len(n) > 0 && len(n) <= end && unsafe.StringData(n) == &ctx.nameSlab[end-len(n)] {
		ctx.nameSlab = ctx.nameSlab[:end-len(n)]
	}
}

// nameSlabBytes is the most bytes of one of joinName's slabs.
const nameSlabBytes = 32 << 10

// newSym adds an output symbol (stored in slabs: a large link creates
// hundreds of thousands) to the positive or negative array.
func newSym(ctx *Context, v OutSym, global bool) int32 {
	s := ctx.allocSym()
	*s = v
	return addSym(ctx, s, global)
}

// newSecSym adds the local section symbol of output section sec, named
// name, for file (0 for a section the link makes), filled in place as
// allocSym's callers fill theirs.
func newSecSym(ctx *Context, name string, sec, file int32) int32 {
	sym := ctx.allocSym()
	sym.Name, sym.Info, sym.Sec, sym.IsSecSym, sym.File = name, elf.STTSection, sec, true, file
	return addSym(ctx, sym, false)
}

// allocSym is a record for a new output symbol, zero, for its caller to
// fill field by field and hand to addSym: on the walk's paths, where an
// OutSym built whole and copied in (newSym) was a store-forwarding stall.
func (ctx *Context) allocSym() *OutSym {
	if len(ctx.symSlab) == cap(ctx.symSlab) {
		refillSlab(ctx, &ctx.symSlab, &ctx.symSlabs, symSlabLen, fedSyms)
	}
	ctx.symSlab = ctx.symSlab[:len(ctx.symSlab)+1]
	return &ctx.symSlab[len(ctx.symSlab)-1]
}

// addSym adds s, allocSym's latest record, filled but for its ID, as
// newSym adds a symbol.
func addSym(ctx *Context, s *OutSym, global bool) int32 {
	s.ID = int32(len(ctx.Syms))
	ctx.Syms = appendRecord(ctx.Syms, s)
	if global {
		ctx.Globals = append(ctx.Globals, s.ID)
	} else {
		ctx.Locals = append(ctx.Locals, s.ID)
	}
	ctx.addStr(ctx.Str, s.Name, &s.nameOff)
	return s.ID
}
