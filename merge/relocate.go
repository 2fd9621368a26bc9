package merge

// relocate: translate every input relocation to the output. Relocations
// whose value is known at link time (offsets inside constant banks, shared
// memory, debug sections) are applied in place to the target section's
// bytes in the input, which this link owns and write copies out; the rest
// (function addresses, global memory) are kept in .rela<target> for the
// driver, with output symbol indices.
//
// Inputs: merge results (SymMap, SecMap, SecOff). Outputs: the relocs of OutSec.gen
// for kept relocations, patched input section bytes.
// Invariants: nvlink builds each output relocation list by prepending, so a
// list is the reverse of the inputs' relocations concatenated in file order.

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"

	"github.com/warplink/warplink/elf"
)

// R_CUDA relocation types (catalog numbering = raw r_type).
const (
	rNone            = 0
	r32              = 1
	r64              = 2
	rG32             = 3
	rG64             = 4
	rABS32_32        = 55
	rABS32_LO_32     = 56
	rABS32_HI_32     = 57
	rABS16_32        = 59
	rFuncDesc32LO32  = 62
	rFuncDesc32HI32  = 63
	rABS47_34        = 58
	rConstField2138  = 66
	rConstField1940  = 64
	rBindlessOff1440 = 65
	rYieldOpcode9    = 68
	rYieldClearPred  = 69
	rUnusedClear64   = 73
	rABS24_40        = 74
	rABS55_16_34     = 75
	rABS20_44        = 100
)

// field is where a relocation type writes its value: width bits at bit
// offset pos of the little-endian word at the relocation offset, with the
// value shifted right by shift first.
type field struct{ pos, width, shift uint }

// relocField is the field relocation type t writes (false: a type
// warplink does not apply). (A switch: a map built at start cost every
// run its initialization, and a lookup per relocation.)
func relocField(t uint32) (field, bool) {
	switch t {
	case r32:
		return field{0, 32, 0}, true
	case r64:
		return field{0, 64, 0}, true
	case rABS32_32, rABS32_LO_32:
		return field{32, 32, 0}, true
	case rABS32_HI_32:
		return field{32, 32, 32}, true
	case rABS16_32:
		return field{32, 16, 0}, true
	case rConstField2138:
		return field{38, 21, 0}, true
	case rABS47_34:
		return field{34, 47, 0}, true // calls before sm_90
	case rConstField1940:
		return field{40, 14, 2}, true // offset in words; the bank number follows at bit 54
	case rBindlessOff1440:
		return field{40, 14, 2}, true // a bound reference's slot, in words (sm_80)
	case rABS24_40:
		return field{40, 24, 0}, true // shared memory before sm_90
	case rABS55_16_34:
		return field{16, 55, 0}, true
	case rABS20_44:
		return field{44, 20, 0}, true // shared memory in LDGSTS (cuda::memcpy_async), sm_80
	}
	return field{}, false
}

func relocate(ctx *Context) error {
	// The relocation sections to create, in the order nvlink creates them:
	// the target's .rela section when an input section first brings kept
	// relocations (or any), its .nv.resolvedrela one when it first brings
	// applied relocations under --preserve-relocs.
	nsec := len(ctx.Secs)
	var relSecOrder []relSecMade
	inOrder := make([]uint8, nsec) // bit 1<<kind per target
	// Each object is patched on its own (it owns its bytes; the output
	// symbols and layout are only read) and records, in its order, the
	// relocations it keeps (in runs for one section each) and the
	// sections they go to. Replaying the records in file order builds the
	// lists a serial pass would.
	done := make([]objRelocs, len(ctx.Objs))
	// Objects are relocated in blocks, each block counting the runs and
	// notes its objects' events hold as it records them, so that the
	// replay's arrays are sized once without walking the events twice.
	// A thread's scratch goes from block to block through the pool.
	var scratch sync.Pool // of *relocScratch
	blocks := make([]relCounts, (len(ctx.Objs)+relocBlock-1)/relocBlock)
	parallelFor(len(blocks), ctx.Opts.Threads, func(b int) error {
		sc, _ := scratch.Get().(*relocScratch)
		if sc == nil {
			sc = &relocScratch{}
		}
		var c relCounts // (blocks[b] once: a neighbour's may be another thread's)
		for i := b * relocBlock; i < min(len(ctx.Objs), (b+1)*relocBlock); i++ {
			prefetchRelocs(ctx, ctx.Objs, i)
			o := ctx.Objs[i]
			relocateObject(ctx, o, sc, &c, &done[i])
			// Only o's own relocations read where its sections lie in
			// their output sections: nothing past this (see below).
			o.SecOff = nil
		}
		blocks[b] = c
		scratch.Put(sc)
		return nil
	})
	// Per output section and kind (every target exists by now), the last
	// of its runs, each run linked to the one before it (file order, then
	// the object's order): a list is its runs walked back, each reversed.
	var nruns, nnotes int
	for _, c := range blocks {
		nruns, nnotes = nruns+c.runs, nnotes+c.notes
	}
	runs := make([]relRun, 0, nruns)
	// (At most a section a note: sized once, where growing it by appends
	// allocated twice its size.)
	relSecOrder = make([]relSecMade, 0, nnotes+boundSecs(ctx))
	var lastRun lastRuns
	for i := range done {
		// An object's kernels get their bound references' relocation
		// sections before the object's own (boundref.go).
		if b := ctx.bound; b != nil {
			for _, bank := range b.banks[i] {
				relSecOrder = append(relSecOrder, relSecMade{relSec{bank, kindBound}, -1, -1})
			}
		}
		for _, ev := range done[i].evs {
			k := ev.key()
			if ev.note {
				if bit := uint8(1) << k.kind; inOrder[k.tgt]&bit == 0 {
					inOrder[k.tgt] |= bit
					relSecOrder = append(relSecOrder, relSecMade{k, int32(i), ev.lo})
				}
				continue
			}
			last := lastRun.at(k, nsec)
			runs = append(runs, relRun{obj: int32(i), lo: ev.lo, hi: ev.hi, prev: *last - 1})
			*last = int32(len(runs))
		}
		if done[i].err != nil {
			return done[i].err
		}
	}
	// Nothing reads where the inputs' sections lie in their output
	// sections past this point: the offsets (merge's one array, 8 bytes an
	// input section: 11 MB at 100,000 objects) go with the collection
	// that follows relocate, before finalize allocates. (Each object's
	// own slice was dropped as its relocations were done.)
	ctx.objArrays.offs = nil
	ctx.reserveSecs(len(relSecOrder))
	ready := prepareRelSecs(ctx, relSecOrder, runs, &lastRun, done)
	for i, m := range relSecOrder {
		if a := i + 16; a < len(ready) && ready[a].h != 0 && ready[a].off == 0 {
			// (The name's .shstrtab slot, asked for ahead: hints.)
			ctx.ShStr.prefetchSlot(ready[a].h)
		}
		if a := i + 8; a < len(ready) && ready[a].h != 0 && ready[a].off == 0 {
			ctx.ShStr.prefetchFirst(ready[a].h)
		}
		r := &ready[i]
		if len(r.l) == 0 {
			continue
		}
		kind := m.relKind()
		sec := ctx.newRelSection(r, kind)
		sec.LinkSymtab = true
		sec.InfoSec = m.tgt
		ctx.setRelocs(sec, r.l)
		sec.Size = uint64(len(r.l)) * kind.ent
	}
	return nil
}

// relocateObject applies the link-time relocations of o to its bytes and
// puts the rest in *dst, adding its runs and notes to n. An error stops
// at the relocation that raised it, as a serial pass would (what came
// before it stands). The events and kept relocations are gathered in sc's
// buffers (reused from one object to the next) and kept at their exact
// size: the output lists of one run alias them to the end of the link,
// and the heap is near its peak here (generated links keep three
// relocations in five; room for every one, then a copy at the exact
// size, would allocate 40 MB at 100,000 objects).
func relocateObject(ctx *Context, o *Obj, sc *relocScratch, n *relCounts, dst *objRelocs) {
	or := relocBuild{objRelocs: objRelocs{evs: sc.evs[:0], rels: sc.rels[:0]}}
	var privatized map[int]bool
	for _, d := range o.relSecs {
		if or.err = relocateSection(ctx, o, d, &or, &privatized); or.err != nil {
			break
		}
	}
	n.runs, n.notes = n.runs+or.nruns, n.notes+or.nnotes
	sc.evs, sc.rels = or.evs[:0], or.rels[:0]
	// (Into *dst field by field: the record returned whole was copied
	// twice, each read right after its fields were stored.)
	dst.evs = carve(&sc.evSlab, or.evs)
	dst.rels = carve(&sc.relSlab, or.rels)
	dst.err = or.err
}

// carve returns a copy of s (nil when empty) from *slab, the free rest of
// a thread's slab for objects' lists (slabTake): a few slabs instead of
// two heap objects an object (10,000 generated objects: some 18,000
// allocations, and as many objects each collection after relocate
// marks).
func carve[T any](slab *[]T, s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return append(slabTake(slab, len(s), relSlabLen), s...)
}

// relSlabLen is the length of carve's slabs: a few KiB, a small object
// that reuses the heap's free pages (slabs past 32 KiB, each its own
// span, grew the peak at 100,000 objects).
const relSlabLen = 256

// relocateSection applies input relocation section d of o, adding its
// events to or: kept relocations, applied ones under --preserve-relocs,
// and the notes of the relocation sections the target needs (its own
// kind's at least, even with nothing kept). A target that did not make it
// into the output (dropped, removed) is skipped whole.
func relocateSection(ctx *Context, o *Obj, d relocSec, or *relocBuild, privatized *map[int]bool) error {
	rs := &o.F.Sections[d.si]
	tgt := int(rs.Info)
	if tgt <= 0 || tgt >= len(o.F.Sections) || o.Drop[tgt] || o.SecMap[tgt] < 0 || ctx.Secs[o.SecMap[tgt]].Dead {
		return nil
	}
	out := o.SecMap[tgt]
	base := o.secOff(tgt)
	data := relocTargetData(ctx, o, tgt, privatized)
	alloc := o.F.Sections[tgt].Flags&elf.SHFAlloc != 0
	kept := false
	own := relSec{out, kindRela} // where kept relocations go
	last := -1                   // the event of the run this section added to last
	if rs.Type == elf.SHTRel {
		own.kind = kindRel
	}
	if ctx.keep.ResolvedRelocs {
		// Under --preserve-relocs nvlink makes the target's
		// .nv.resolvedrela section right after the section of the first
		// input relocation section for it, applied relocations or not
		// (sm_80 code with .rela then .rel sections: the resolved ones
		// between; the sweep's coop-warp, virtual, debug-cross-printf
		// with -G or -lineinfo).
		kept = true
		or.note(d.si, own, relSec{out, kindResolved})
	}
	for _, r := range d.rels {
		if skipReloc(ctx, o, tgt, r, data) {
			continue
		}
		if r.Offset >= o.F.Sections[tgt].Size {
			return fmt.Errorf("%s: relocation offset 0x%x is past the end of section %s", o.Name, r.Offset, o.F.SecName(int(tgt)))
		}
		var v relocTarget
		resolveReloc(ctx, o, r, alloc, out, &v)
		if !v.ok {
			continue // reference to a dropped weak copy: nvlink removes it
		}
		if v.keep && v.sym >= 0 && ctx.dropsSym(ctx.Syms[v.sym]) {
			continue // (against a symbol the release does not write: __UFT_OFFSET)
		}
		if v.keep {
			typ := r.Type
			if abs, ok := ctx.Rel.UnifiedAbs[typ]; ok {
				typ = abs
			}
			or.keep(own, OutRel{Offset: base + r.Offset, Sym: v.sym, Type: typ, Addend: r.Addend}, &last)
			if !kept {
				kept = true
				or.note(d.si, own)
			}
			continue
		}
		f, known := relocField(r.Type)
		if !known {
			return fmt.Errorf("%s: unsupported relocation type %d in %s", o.Name, r.Type, o.F.SecName(int(d.si)))
		}
		if r.Offset < uint64(len(data)) { // (NOBITS targets have no bytes)
			patchReloc(ctx, o, data[r.Offset:], r, f, &v)
		}
		if ctx.keep.ResolvedRelocs && (v.sym >= 0 || v.sym == symNull) && !v.bound {
			// (A bound reference's slot is no resolved relocation:
			// crafted preserve-relocs-bound-references.)
			val := v.val
			if v.sym >= 0 && !ctx.Syms[v.sym].IsSecSym {
				val = 0 // the symbol itself carries the value
			}
			applied := relSec{out, kindResolved}
			or.keep(applied, OutRel{Offset: base + r.Offset, Sym: v.sym, Type: r.Type, Addend: int64(val) + r.Addend}, &last)
			kept = true
			or.note(d.si, own, applied)
		}
	}
	if !kept {
		or.note(d.si, own)
	}
	return nil
}

// relocTargetData is the bytes of input section tgt to patch, in place:
// the input's bytes are private to this link and are what write copies
// out (no second copy of the code). A malformed input whose sections
// overlap gets a copy first (once per section: privatized), so that
// patching one cannot change another (or the names read from its string
// table).
func relocTargetData(ctx *Context, o *Obj, tgt int, privatized *map[int]bool) []byte {
	data := o.F.Sections[tgt].Data()
	if !o.overlaps || (*privatized)[tgt] {
		return data
	}
	if *privatized == nil {
		*privatized = map[int]bool{}
	}
	(*privatized)[tgt] = true
	// (Kept in objRare.private too: the section table holding the slice
	// may live where the collector does not look; see elf.ParseInto. An
	// object with overlaps got its objRare when read: here objects are
	// relocated in parallel, and read other objects' objRare.)
	data = append(ctx.mem.Alloc(len(data))[:0], data...)
	o.rare.private = append(o.rare.private, data)
	o.F.Sections[tgt].SetData(data)
	return data
}

// droppedType reports a relocation type skipReloc always drops: none,
// the YIELD ones (they would turn a YIELD into a NOP where forward
// progress is not required; nvlink 11.8 leaves the code as it is and
// drops them: -G code, testdata/crafted/debug-yield-sm80), and
// R_CUDA_UNUSED_CLEAR64, whose 8 bytes skipReloc clears when its symbol
// is dead.
func droppedType(t uint32) bool {
	return t == rNone || t == rYieldOpcode9 || t == rYieldClearPred || t == rUnusedClear64
}

// skipReloc reports the relocations nvlink 11.8 neither applies nor
// keeps; an UNUSED_CLEAR64 one clears its field in data first when the
// function it names was removed.
func skipReloc(ctx *Context, o *Obj, tgt int, r elf.Rela, data []byte) bool {
	switch {
	case droppedType(r.Type):
		if r.Type == rUnusedClear64 {
			if m := remapSym(o, r.Sym); m >= 0 && ctx.Syms[m].dead && r.Offset+8 <= uint64(len(data)) {
				clear(data[r.Offset : r.Offset+8])
			}
		}
		return true
	case o.inLostData(tgt, r.Offset):
		// In a weak copy another file's replaced (a template's virtual
		// table in two objects): nvlink 11.8 drops its relocations,
		// though the bytes stay (testdata/crafted/weak-vtables).
		return true
	case ctx.Rel.DropLoserDebugRelocs && o.F.Sections[tgt].Flags&elf.SHFAlloc == 0 && o.replacedFunc(r.Sym):
		return true // (Release.DropLoserDebugRelocs)
	}
	return false
}

// relocTarget is what a relocation resolves to: the output symbol, the
// value to apply, whether it is kept for the driver instead (keep) or
// removed (!ok), and whether it is a bound reference's slot.
type relocTarget struct {
	sym             int32
	val             uint64
	keep, ok, bound bool
}

// resolveReloc resolves relocation r of o, in a section of output section
// out (alloc: an allocated one), into v: relocValue's answer, a bound
// texture or surface reference's slot in code, or extern shared memory's
// offset. (Into the caller's v: a result of five fields is no register
// value, and its copy out, read whole right after its fields were
// stored, stalled once per relocation.)
func resolveReloc(ctx *Context, o *Obj, r elf.Rela, alloc bool, out int32, v *relocTarget) {
	v.sym, v.val, v.keep, v.ok = ctx.relocValue(o, r)
	slot, bound := ctx.bound.slotOf(v.sym)
	v.bound = bound
	if bound && alloc {
		// A bound texture or surface reference in code: its slot in the
		// kernels' bank 0 (boundref.go). Debug information keeps its
		// relocation for the driver, as relocValue keeps any undefined
		// symbol's (-G).
		v.val, v.keep = slot, false
	}
	if isExternShared(&o.F.Symbols[r.Sym]) {
		v.sym, v.val = ctx.externRelocValue(o, r, alloc, out)
		v.keep, v.ok = false, true
	}
}

// patchReloc writes resolved relocation r into b (its field's bytes on).
func patchReloc(ctx *Context, o *Obj, b []byte, r elf.Rela, f field, v *relocTarget) {
	if v.bound {
		// ptxas leaves an offset of its own in the field: replaced, not
		// added to (boundref.go).
		setField(b, f, uint64(int64(v.val)+r.Addend))
	} else {
		patch(b, f, uint64(int64(v.val)+r.Addend))
	}
	if r.Type == rConstField1940 || r.Type == rConstField2138 {
		// The constant bank number goes beside the offset, at bit 54
		// (ptxas fills it in for sm_90, not in sm_80's byte loads:
		// testdata/crafted/constant-bank-field).
		setField(b, field{54, 5, 0}, uint64(ctx.constBank(o, r.Sym)))
	}
}

// lostRange is where input section sec holds a replaced copy of weak
// data: bytes [lo, hi).
type lostRange struct {
	sec    uint32
	lo, hi uint64
}

// inLostData reports whether offset off of input section sec lies in a
// replaced copy of weak data (a short scan: few objects have any).
func (o *Obj) inLostData(sec int, off uint64) bool {
	for _, r := range o.lostRanges() {
		if int(r.sec) == sec && off >= r.lo && off < r.hi {
			return true
		}
	}
	return false
}

// ptxConst0Size is a local undefined symbol libcudadevrt's code refers to
// (R_CUDA_ABS32_32, in cudaMemcpyAsync, cudaMemsetAsync and their kin):
// nvlink 11.8 writes there the size of the module's __constant__ bank
// (.nv.constant3), 0xFFFFFFFF when the link has none (crafted
// devrt-const0-size; corpus cdp under --preserve-relocs).
const ptxConst0Size = ".nv.ptx.const0.size"

// moduleConstants is the output section of the module's __constant__ data.
const moduleConstants = ".nv.constant3"

// externRelocValue is what reference r of o to an extern __shared__ array,
// in code (alloc) or debug information of output section out, resolves
// to: under -g its symbol's offset, in code and debug information alike
// (layoutShared), resolved against the symbol under --preserve-relocs; in code kernels run, where layout placed it for them;
// else -1 plus the addend (testdata/crafted/debug-extern-shared), under
// --preserve-relocs resolved against the array's symbol when that is kept
// (code no kernel runs, and debug information: fuzzed shared-memory
// programs; crafted preserve-relocs-extern-unreached, -extern-debug).
// No symbol is -1, as for relocValue.
func (ctx *Context) externRelocValue(o *Obj, r elf.Rela, alloc bool, out int32) (sym int32, val uint64) {
	m := o.SymMap[r.Sym]
	if ctx.keep.ExternSharedAtOffset && m >= 0 {
		if ctx.keep.ResolvedRelocs {
			// -g keeps the symbol: every reference, in code and debug
			// information, resolved against it (Thrust's shmem under -G;
			// crafted preserve-relocs-debug-extern).
			return m, ctx.externSymOff[m]
		}
		return -1, ctx.externSymOff[m]
	}
	off, reached := ctx.externOff[out]
	preserve := ctx.keep.ExternSharedPastWindow
	if alloc && (reached || !preserve) {
		return -1, off
	}
	if preserve && m >= 0 && !ctx.Syms[m].dead {
		return m, ^uint64(0)
	}
	return -1, ^uint64(0)
}

// symNull stands for the null symbol (index 0) in an output relocation.
const symNull = -2

// relocValue decides what an input relocation refers to in the output:
// the output symbol (for kept relocations; -1 for none: 0 is the first
// symbol made, the section symbol of an empty first object's .debug_frame
// say, crafted preserve-relocs-empty-first) or the link-time value.
func (ctx *Context) relocValue(o *Obj, r elf.Rela) (sym int32, val uint64, keep, ok bool) {
	if r.Sym == 0 {
		return -1, 0, false, true
	}
	in := &o.F.Symbols[r.Sym]
	if in.Shndx == elf.SHNUndef && in.Bind() == elf.STBLocal {
		if o.isConst0Size(r.Sym) {
			if id, ok := ctx.secNamed(moduleConstants); ok && !ctx.Secs[id].Dead {
				return -1, ctx.Secs[id].Size, false, true
			}
			return -1, 0xFFFFFFFF, false, true
		}
		// Another local undefined symbol (a PTX label ptxas left
		// undefined for -G's .debug_loc, in -G builds of Thrust): 0, and
		// under --preserve-relocs listed against the null symbol.
		return symNull, 0, false, true
	}
	m := o.SymMap[r.Sym]
	if sec, local := o.localDataSec(r.Sym); local { // offset inside its output section
		if v, ok := ctx.funcBankValue(o, in, sec); ok {
			return -1, v, false, true
		}
		secSym := ctx.Secs[sec].SymID
		// (-1: the section has no symbol.)
		if ctx.Secs[sec].Dead && ctx.isSharedMemory(sec) {
			// A removed kernel's own shared variable, which only debug
			// information still names (its code went with it): -1 plus
			// the addend, as for extern shared memory (crafted
			// debug-removed-shared).
			return secSym, ^uint64(0), false, true
		}
		if v, ok := ctx.dataVal[dataKey{int32(o.ID), int32(r.Sym)}]; ok {
			if id, kept := o.sharedSym(int32(r.Sym)); kept {
				return id, v, false, true // --preserve-relocs
			}
			if w := ctx.res(o, int(r.Sym)); w != nil && w.File >= 0 && int(w.File) < len(ctx.Objs) {
				// Another object's copy of global shared data: the
				// winner's symbol (sweep weak-inline-shared).
				if id, kept := ctx.Objs[w.File].sharedSym(w.Index); kept {
					return id, v, false, true
				}
			}
			return secSym, v, false, true
		}
		if ctx.isSharedMemory(sec) {
			// Shared memory no kept kernel uses (a link left without
			// kernels by --kernels-used) is laid out nowhere: nvlink
			// 11.8 writes offset 0 (the symbol's value is its
			// alignment; sweep fp-table with --kernels-used).
			return secSym, 0, false, true
		}
		return secSym, in.Value + o.secOff(int(in.Shndx)), false, true
	}
	if m < 0 || ctx.Syms[m].dead {
		return -1, 0, false, false
	}
	s := ctx.Syms[m]
	if v, ok := ctx.funcBankValue(o, in, s.Sec); ok && s.Sec >= 0 {
		// A function's constant, moved into the kernels' banks (funcbank.go).
		return -1, v, false, true
	}
	if s.IsSecSym {
		// A section symbol: the input section's contribution offset.
		if in.Shndx != 0 && int(in.Shndx) < len(o.SecOff) && o.SecMap[in.Shndx] >= 0 {
			return m, o.secOff(int(in.Shndx)), false, true
		}
		return m, 0, false, true
	}
	if s.Type() == elf.STTFunc || s.Sec < 0 || ctx.isGlobalMemory(s.Sec) || r.Type == rG32 || r.Type == rG64 {
		// (The generic address of a variable, even in a constant bank,
		// is the driver's to resolve: -G's .debug_info names __constant__
		// data so, testdata/crafted/debug-g64-constant.)
		return m, 0, true, true
	}
	return m, s.Value, false, true
}

// isGlobalMemory reports sections whose addresses the driver assigns.
func (ctx *Context) isGlobalMemory(sec int32) bool {
	n := ctx.Secs[sec].Name
	return n == ".nv.global" || n == ".nv.global.init"
}

// fillSection writes bytes [lo, lo+len(b)) of section s into b: its
// generated contents, or its pieces, and zeros wherever neither reaches
// (alignment gaps between pieces, a tail past the last). b may hold
// anything before: the writer reuses its buffers. (Pieces come in offset
// order, end to end: mapSectionTo. A gap is cleared only past every byte
// written so far, so a later piece that covers it still wins.)
func (ctx *Context) fillSection(s *OutSec, b []byte, lo uint64) {
	if data := s.Data(); data != nil {
		n := 0
		if lo < uint64(len(data)) {
			n = copy(b, data[lo:])
		}
		clear(b[n:])
		return
	}
	ctx.fillPieces(s.Pieces(), b, lo, false)
}

// fillPieces writes the bytes [lo, lo+len(b)) of a section made of
// pieces ps into b, every one of them (fillSection); sorted says the
// pieces' offsets never decrease, so that none past the range need be
// looked at (pieceCursor). It reports whether each piece it looked at
// ends at or before the next begins (pieceCursor.fillSpan).
func (ctx *Context) fillPieces(ps []Piece, b []byte, lo uint64, sorted bool) (disjoint bool) {
	hi := lo + uint64(len(b))
	cur := lo // b holds the section's bytes up to cur
	disjoint = true
	for k, p := range ps {
		if sorted && p.Offset >= hi {
			break
		}
		data := ctx.Objs[p.Obj].F.Sections[p.Sec].Data()
		end := p.Offset + uint64(len(data))
		if k+1 < len(ps) && end > ps[k+1].Offset {
			disjoint = false
		}
		from, to := max(p.Offset, lo), min(end, hi)
		if from >= to {
			continue
		}
		if from > cur {
			clear(b[cur-lo : from-lo])
		}
		copy(b[from-lo:to-lo], data[from-p.Offset:])
		cur = max(cur, to)
	}
	clear(b[cur-lo:])
	return disjoint
}

// setField writes v into the bit field f of the little-endian bytes at b
// (the field's bits are replaced, not added to).
func setField(b []byte, f field, v uint64) {
	var w [16]byte
	n := copy(w[:], b[:min(len(b), int((f.pos+f.width+7)/8))])
	lo, hi := insert(le64(w[0:8]), le64(w[8:16]), f.pos, f.width, (v>>f.shift)&(uint64(1)<<f.width-1))
	put64(w[0:8], lo)
	put64(w[8:16], hi)
	copy(b[:n], w[:n])
}

// patch adds v into the bit field f of the little-endian bytes at b.
func patch(b []byte, f field, v uint64) {
	v >>= f.shift
	nbytes := int((f.pos + f.width + 7) / 8)
	if nbytes > len(b) {
		nbytes = len(b)
	}
	var w [16]byte
	copy(w[:], b[:nbytes])
	lo := le64(w[0:8])
	hi := le64(w[8:16])
	mask := uint64(1)<<f.width - 1
	if f.width == 64 {
		mask = ^uint64(0)
	}
	// Read the existing field (the addend may live in the instruction).
	cur := extract(lo, hi, f.pos, f.width)
	nv := (cur + v) & mask
	lo, hi = insert(lo, hi, f.pos, f.width, nv)
	put64(w[0:8], lo)
	put64(w[8:16], hi)
	copy(b[:nbytes], w[:nbytes])
}

// extract is the width bits (at most 64) at bit pos of the 128-bit
// little-endian word hi:lo. (Go's shifts by 64 or more give 0, which
// covers a field wholly in lo, wholly in hi, or across both.)
func extract(lo, hi uint64, pos, width uint) uint64 {
	v := lo>>pos | hi<<(64-pos) | hi>>(pos-64)
	if width < 64 {
		v &= uint64(1)<<width - 1
	}
	return v
}

// insert replaces the width bits (at most 64) at bit pos of hi:lo with
// v's low width bits.
func insert(lo, hi uint64, pos, width uint, v uint64) (uint64, uint64) {
	m := ^uint64(0)
	if width < 64 {
		m = uint64(1)<<width - 1
	}
	v &= m
	lo = lo&^(m<<pos) | v<<pos
	hm := m>>(64-pos) | m<<(pos-64)
	hv := v>>(64-pos) | v<<(pos-64)
	hi = hi&^hm | hv
	return lo, hi
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

func put64(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) }

// constBank is the constant bank number of the section input symbol sym
// of o lives in (.nv.constantN...), 0 if none.
func (ctx *Context) constBank(o *Obj, sym uint32) int {
	if int(sym) >= len(o.F.Symbols) {
		return 0
	}
	// (The output section's name: a bank's input sections go to the
	// output section of their name, and the inputs' names are gone,
	// releaseNames.)
	name := ""
	if m := o.SymMap[sym]; m >= 0 && ctx.Syms[m].Sec >= 0 {
		name = ctx.Secs[ctx.Syms[m].Sec].Name
	} else if sec, local := o.localDataSec(sym); local {
		name = ctx.Secs[sec].Name
	} else if s := &o.F.Symbols[sym]; o.definingSection(s) != nil && o.SecMap[s.Shndx] >= 0 {
		name = ctx.Secs[o.SecMap[s.Shndx]].Name
	}
	rest, ok := strings.CutPrefix(name, ".nv.constant")
	if !ok {
		return 0
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}
