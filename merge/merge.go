package merge

// merge: walk the inputs in file order and build the output's sections and
// symbols in the order nvlink creates them.
//
// Inputs: Context.Objs parsed, Context.Res (resolution winners).
// Outputs: Context.Secs, Context.Syms, Locals/Globals arrays, per-object
// SymMap/SecMap/SecOff, and pieces of data appended to output sections.
// Invariants: creation order only depends on file order and the order of
// symbols and sections inside each file, so it is the same for any thread
// count. Per file, nvlink handles symbols in .symtab order, but data
// objects (STT_OBJECT and the CUDA object type 13) after everything else.
// Names enter the string tables through Context.addStr, in the order
// nvlink creates them; from about 300 objects another goroutine makes
// those additions, in that order (strqueue.go), and the offsets merge
// asks for are in place when the pass returns.

import (
	"runtime"
	"slices"
	"strings"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/shard"
)

// sttCudaObject is the symbol type ptxas gives __device__/__constant__ data.
const sttCudaObject = 13

func isDataSym(s *elf.Symbol) bool {
	t := s.Type()
	return t == elf.STTObject || t == sttCudaObject
}

// dataOrder reports the symbols mergeFile takes in the order of global
// data: data, and bound texture and surface references (their names come
// after the functions', their records after the locals: testdata/crafted/
// bound-references).
func dataOrder(s *elf.Symbol) bool { return isDataSym(s) || isBoundRef(s) }

// regenerated reports input sections the linker rebuilds rather than copies.
func regenerated(s *elf.Section) bool {
	switch s.Type {
	case elf.SHTNull, elf.SHTSymtab, elf.SHTStrtab, elf.SHTSymtabShndx,
		elf.SHTRel, elf.SHTRela, elf.SHTCudaInfo, elf.SHTCudaCallgraph,
		elf.SHTCudaPrototype, elf.SHTCudaRelAction:
		return true
	}
	return false
}

// outType is the section type an executable output uses for an input section.
func outType(s *elf.Section) (uint32, bool) {
	switch {
	case s.Type >= elf.SHTCudaConstant0 && s.Type <= elf.SHTCudaConstant0+17:
		return elf.SHTProgbits, false
	case s.Type == elf.SHTCudaGlobalInit:
		return elf.SHTProgbits, false
	case s.Type == elf.SHTCudaGlobal, s.Type == elf.SHTCudaShared,
		s.Type == elf.SHTCudaLocal, s.Type == elf.SHTCudaSharedReserved,
		s.Type == elf.SHTNobits:
		return elf.SHTNobits, true
	}
	return s.Type, false
}

// objTotals is what merge sizes its arrays and tables by: the objects'
// input sections and symbols, and the bytes of their .strtab and
// .shstrtab; and resolve its arrays and shard tables: the symbols, and
// the global ones among them. read sums it batch by batch as it loads
// the objects, while their records are in the caches (counted by merge
// or resolve, every object would cost cache misses more on a serial path).
type objTotals struct {
	secs, syms, str, shstr, globals int
}

// add counts o (nil: nothing).
func (t *objTotals) add(o *Obj) {
	if o == nil {
		return
	}
	t.secs += len(o.F.Sections)
	t.syms += len(o.F.Symbols)
	t.globals += len(o.F.Symbols) - o.firstNonLocal()
	if i := o.F.StrtabIndex; i > 0 {
		t.str += len(o.F.Sections[i].Data())
	}
	if i := o.F.Header.Shstrndx; int(i) < len(o.F.Sections) {
		t.shstr += len(o.F.Sections[i].Data())
	}
}

// sub uncounts o (an object resolve leaves out).
func (t *objTotals) sub(o *Obj) {
	var u objTotals
	u.add(o)
	t.plus(u, -1)
}

// plus adds sign times u's counts.
func (t *objTotals) plus(u objTotals, sign int) {
	t.secs, t.syms, t.globals = t.secs+sign*u.secs, t.syms+sign*u.syms, t.globals+sign*u.globals
	t.str, t.shstr = t.str+sign*u.str, t.shstr+sign*u.shstr
}

// addAll counts objs.
func (t *objTotals) addAll(objs []*Obj) {
	for _, o := range objs {
		t.add(o)
	}
}

// sumTotals is the sum of ts.
func sumTotals(ts []objTotals) objTotals {
	var t objTotals
	for _, u := range ts {
		t.plus(u, 1)
	}
	return t
}

// objTotalsOf counts objs.
func objTotalsOf(objs []*Obj) objTotals {
	var t objTotals
	t.addAll(objs)
	return t
}

// objTotals is the objects' totals: read's (Context.totals, no serial
// pass over the objects), else counted here.
func (ctx *Context) objTotals() objTotals {
	if ctx.totals != nil {
		return *ctx.totals
	}
	return objTotalsOf(ctx.Objs)
}

// objMaps is the memory of the per-object maps of objects with t's
// totals (Obj.SecMap and SymMap, all -1; SecOff; Drop), carved by take.
type objMaps struct {
	maps  []int32
	offs  []uint32
	drops []bool
}

// threads is how many goroutines fill them (see fillBlock).
func newObjMaps(t objTotals, threads int) objMaps {
	a := objMaps{maps: make([]int32, t.secs+t.syms), offs: make([]uint32, t.secs), drops: make([]bool, t.secs)}
	blocks := (len(a.maps) + fillBlock - 1) / fillBlock
	if blocks < 4 {
		threads = 1
	}
	parallelFor(blocks, threads, func(b int) error {
		lo, hi := b*fillBlock, min(len(a.maps), (b+1)*fillBlock)
		for i := lo; i < hi; i++ {
			a.maps[i] = -1
		}
		// (Read before written: see touchSlice.)
		touchSlice(a.offs[min(lo, len(a.offs)):min(hi, len(a.offs))])
		touchSlice(a.drops[min(lo, len(a.drops)):min(hi, len(a.drops))])
		return nil
	})
	return a
}

// fillBlock is how many entries of the maps one step of newObjMaps
// fills: from four of them on, the steps run on every thread (at 100,000
// objects 16 MB of fresh memory, faulted and filled while merge's string
// queue has little to do yet).
const fillBlock = 1 << 18

// take gives objs[k] its maps from a, or from new arrays for the objects
// from k on when a has too little left (Context.totals out of step with
// the objects: a safeguard), which keep holds whole as merge's first.
func (a *objMaps) take(objs []*Obj, k int, keep *objArrays) {
	o := objs[k]
	n, m := len(o.F.Sections), len(o.F.Symbols)
	if len(a.maps) < n+m || len(a.offs) < n {
		*a = newObjMaps(objTotalsOf(objs[k:]), 1)
		keep.keepMaps(*a)
	}
	o.SecMap, a.maps = a.maps[:n:n], a.maps[n:]
	o.SymMap, a.maps = a.maps[:m:m], a.maps[m:]
	o.SecOff, a.offs = a.offs[:n:n], a.offs[n:]
	o.Drop, a.drops = a.drops[:n:n], a.drops[n:]
}

func merge(ctx *Context) error {
	// The per-object maps come from slabs, and the string tables start at
	// about their final size: at 10,000 objects that saves some 40,000
	// allocations and the copies of repeated growth.
	t := ctx.objTotals()
	nsec, nsym, strBytes, shstrBytes := t.secs, t.syms, t.str, t.shstr
	reserve := func() {
		ctx.Str.reserve(strBytes, ctx.mem.Alloc)
		ctx.ShStr.reserve(shstrBytes, ctx.mem.Alloc)
	}
	// The tables' additions go to another goroutine (see strqueue.go),
	// in the order made here, when there is another thread to run it (and
	// the link may use one: Options.Threads) and enough of them to pay
	// for it. That goroutine sizes the tables too: rehashing the names
	// they hold already faults in pages of their new indexes (huge ones),
	// which it does anyway, off merge's goroutine.
	least := ctx.Opts.StrQueueMin
	if least == 0 {
		least = queueMin
	}
	if least > 0 && nsec+nsym >= least && runtime.GOMAXPROCS(0) > 1 && workers(ctx.Opts.Threads) > 1 {
		var slabs *slabFeed
		if !ctx.recordsMapped && nsec+nsym >= feedMin {
			slabs = newSlabFeed(nsec, nsym)
		}
		ctx.strq = openStrQueue(reserve, slabs, ctx.Str, ctx.ShStr)
	} else {
		reserve()
	}
	// Output sections run about a third of the inputs' (see below).
	ctx.secNames = newSecNames(nsec / 3)
	// The section and symbol lists too, so that they are not copied as
	// they grow (generated links at 10,000 objects: 46,700 output sections
	// for 141,000 input ones, 42,500 output symbols for 95,000 input ones,
	// about three in five of them local).
	ctx.Secs = growRecords(ctx.Secs, nsec/3+64)
	ctx.infoSeen = slices.Grow(ctx.infoSeen, nsec/3+64)
	ctx.Syms = growRecords(ctx.Syms, nsym/2+64)
	ctx.Locals = slices.Grow(ctx.Locals, nsym*3/10+64)
	ctx.Globals = slices.Grow(ctx.Globals, nsym/5+64)
	arrays := newObjMaps(t, ctx.Opts.Threads)
	ctx.objArrays.keepMaps(arrays)
	for k, o := range ctx.Objs {
		prefetchAhead(ctx, ctx.Objs, k)
		arrays.take(ctx.Objs, k, &ctx.objArrays)
		prefetchDrops(arrays.drops)
		markWeakLosers(ctx, o)
		ctx.hashObject(o)
		mergeFile(ctx, o)
	}
	ctx.walk, ctx.walkSyms, ctx.walkData, ctx.walkInfo = walkHashes{}, nil, nil, nil
	for id := range ctx.unclaimedSecSyms {
		ctx.Syms[id].dead = true
	}
	if ctx.strq != nil {
		ctx.strq.close()
		ctx.keepFed(ctx.strq.slabs)
		ctx.strq = nil
	}
	ctx.protoStrs = ctx.Str.Bytes()
	return ctx.releaseNames(ctx.Opts.CheckNames)
}

// joined returns a+b, or have when it spells a+b already (an input
// section's own name), which spares the concatenation.
func joined(have, a, b string) string {
	if len(have) == len(a)+len(b) && strings.HasPrefix(have, a) && strings.HasSuffix(have, b) {
		return have
	}
	return a + b
}

// relNeedsCompanion is the condition of the ".rel<target>" name above
// (observed on nvlink 11.8 outputs: corpus xcall, globals, constants,
// printf, shared): in allocated sections a RELA entry past the first with
// addend 0, or one naming global data or data still undefined; a
// link-time resolution in debug sections. r is entry k of its section.
func (ctx *Context) relNeedsCompanion(o *Obj, k int, r elf.Rela, target int, rela, nonAlloc bool) bool {
	if r.Sym == 0 || int(r.Sym) >= len(o.F.Symbols) {
		return false
	}
	if nonAlloc {
		// In RELA sections (sm_90), a function named with addend 0 counts
		// as resolved at link time when it is weak, defined here and
		// replaced by a later file's definition (weak-loser-cleanup:
		// .debug_line's R_CUDA_64 against weak foo; not the copy that wins,
		// nor one an earlier copy replaces: crafted weak-winner-debug-line;
		// -G's .debug_loc names weak templates with other addends only,
		// and gets none: testdata/crafted/debug-loc-weak), or by any entry
		// but the first (-lineinfo's .debug_line of an object with two
		// functions; patched addends and orders show the rule).
		// Neither counts in sm_80's REL sections
		// (testdata/crafted/debug-line-functions).
		if in := &o.F.Symbols[r.Sym]; rela && in.Type() == elf.STTFunc && r.Addend == 0 &&
			(k > 0 || in.Bind() == elf.STBWeak && in.Shndx != elf.SHNUndef && o.replacedLater(uint32(in.Shndx))) {
			return true
		}
		_, _, keep, ok := ctx.relocValue(o, r)
		return ok && !keep || r.Type == rUnusedClear64
	}
	if rela && k > 0 && r.Addend == 0 {
		// Any entry but the first with addend 0, whatever it names: a
		// call's callee (the caller's own return addresses have others),
		// constant data at the start of a variable, a function address in
		// data. So a call then a call through a pointer (relocations
		// f f g f f, in the section's order) names it, the other way round
		// (g f f f f) not; pp.c then pp.a (addends 8, 0) names it, pp.a
		// then pp.c not, nor q+4 then pp+8; two function addresses in a
		// virtual table name it, one not (testdata/crafted/
		// rel-companion-order, rel-companion-addend, constant-refs,
		// externs-indirect; addends patched in probes show the rule, as
		// for debug sections above). (sm_80's REL sections, without
		// addends, are named so already.)
		return true
	}
	if o.F.Sections[target].Flags&elf.SHFExecInstr == 0 {
		return false
	}
	in := &o.F.Symbols[r.Sym]
	if !isDataSym(in) {
		return false
	}
	// Data whose address the link cannot know yet: global memory (the
	// driver places it), commons, data not defined yet.
	// (Constant memory not defined yet does not: only its count above.)
	m := o.SymMap[r.Sym]
	// (Nor the unified tables' symbols a release resolves itself and
	// writes no symbol for: nvlink 12.5's __UFT_OFFSET in calls through
	// pointers; cuda-samples newdelete.)
	undefined := m >= 0 && ctx.Syms[m].Sec < 0 && ctx.Syms[m].Shndx == 0 && !ctx.isConstantData(o, int(r.Sym)) &&
		!ctx.dropsSym(ctx.Syms[m])
	// (Global memory an earlier object defined counts too: an extern
	// __device__ array: testdata/crafted/extern-global-defined-earlier.)
	global := m >= 0 && ctx.Syms[m].Sec >= 0 && ctx.isGlobalMemory(ctx.Syms[m].Sec)
	return undefined || global || in.Shndx == elf.SHNCommon || o.inSectionNamed(in, isGlobalMemoryName)
}

// definingSection is the input section symbol s is defined in, or nil
// (undefined, absolute, common, or an index past the section table).
func (o *Obj) definingSection(s *elf.Symbol) *elf.Section {
	if s.Shndx == elf.SHNUndef || s.Shndx >= elf.SHNLoReserve || int(s.Shndx) >= len(o.F.Sections) {
		return nil
	}
	return &o.F.Sections[s.Shndx]
}

// inSectionNamed reports whether input symbol s is defined in a section
// whose name satisfies match.
func (o *Obj) inSectionNamed(s *elf.Symbol, match func(string) bool) bool {
	return o.definingSection(s) != nil && match(o.F.SecName(int(s.Shndx)))
}

// isSharedName reports the sections of shared memory.
func isSharedName(n string) bool {
	return strings.HasPrefix(n, ".nv.shared.") || n == moduleShared
}

// isConstantData reports whether data symbol i of o is constant memory
// (a `__constant__` variable, in a .nv.constant<N> bank): defined so here,
// or, when o only declares it, by the definition resolution chose (which
// may come from a later file).
func (ctx *Context) isConstantData(o *Obj, i int) bool {
	s := &o.F.Symbols[i]
	if s.Shndx != elf.SHNUndef {
		return o.inSectionNamed(s, isConstantBankName)
	}
	r := ctx.res(o, i)
	if r == nil || r.File < 0 || int(r.File) >= len(ctx.Objs) {
		return false
	}
	def := ctx.Objs[r.File]
	return int(r.Index) < len(def.F.Symbols) && def.inSectionNamed(&def.F.Symbols[r.Index], isConstantBankName)
}

// isConstantBankName reports the sections of constant memory banks.
func isConstantBankName(n string) bool { return strings.HasPrefix(n, ".nv.constant") }

// isGlobalMemoryName reports the sections of global memory.
func isGlobalMemoryName(name string) bool {
	return name == ".nv.global" || name == ".nv.global.init"
}

// noteFunctionInfo records the names of the .nv.info.<f> sections nvlink
// creates for non-entry functions when it reads their records in .nv.info.
func noteFunctionInfo(ctx *Context, o *Obj, si int) {
	// (Into the walk's room, reused: an array on the stack would be
	// cleared at every call.)
	if ctx.walkInfo == nil {
		ctx.walkInfo = make([]elf.Attr, 0, infoBuf)
	}
	attrs := o.info(si, ctx.walkInfo[:0])
	ctx.walkInfo = attrs[:0]
	// nvlink walks the records from the last (it keeps them in a list it
	// prepends to): corpus weakregs and funcptr.
	for k := len(attrs) - 1; k >= 0; k-- {
		a := attrs[k]
		if !symIndexAttr(a.Code) || len(a.Payload) < 4 {
			continue
		}
		m := remapSym(o, a.U32(0))
		if m < 0 || ctx.Syms[m].Sec < 0 {
			continue
		}
		ctx.noteInfoSection(ctx.Syms[m].Sec, "")
	}
}

// noteInfoSection records that nvlink creates the .nv.info.<f> of code
// section text now (first time only): its name enters the string tables and
// its position among the .nv.info sections is fixed. have is an input's
// name for it, if known ("" otherwise), which spares the concatenation.
func (ctx *Context) noteInfoSection(text int32, have string) {
	if ctx.infoNoted(text) {
		return
	}
	if int(text) >= len(ctx.infoSeen) {
		// (Extended to every section so far, in the room merge reserved:
		// no copy, no allocation as the sections grow.)
		n, old := max(int(text)+1, len(ctx.Secs)), len(ctx.infoSeen)
		ctx.infoSeen = slices.Grow(ctx.infoSeen, n-old)[:n]
		clear(ctx.infoSeen[old:])
	}
	ctx.infoSeen[text] = true
	ctx.infoOrder = append(ctx.infoOrder, text)
	ctx.addJoinedSecName(have, preInfo, strings.TrimPrefix(ctx.Secs[text].Name, ".text"), text)
}

// infoNoted reports whether noteInfoSection has noted code section text.
func (ctx *Context) infoNoted(text int32) bool {
	return int(text) < len(ctx.infoSeen) && ctx.infoSeen[text]
}

// stvInternal is STV_INTERNAL: ptxas marks its own local data so (the
// kernel parameter block "_param" in .nv.constant0.<k> of pre-sm_90
// cubins), and nvlink keeps no symbol for it.
const stvInternal = 1

// stoCudaObscure is the st_other bit nvlink 11.8 treats as "obscure": the
// .strtab names of the sections it makes for such a function afterwards
// (.nv.info.<f>, .rela.text.<f>) are written as dots of the same length
// (testdata/crafted/sto-cuda-obscure). The seeds read the same bit as
// "address taken" in nvlink 13 (shard.OtherAddrTaken: resolution gathers
// it over every appearance of a name).
const stoCudaObscure = shard.OtherAddrTaken

// addSecName enters the name of a section nvlink creates (or creates and
// drops) into both string tables, in that order: .shstrtab as it is,
// .strtab as strName gives it for output section text (-1: none).
func (ctx *Context) addSecName(name string, text int32) {
	if !ctx.obscure(text) {
		ctx.addJoinedBoth(ctx.ShStr, ctx.Str, preNone, name)
		return
	}
	ctx.addStr(ctx.ShStr, name, nil)
	ctx.addStr(ctx.Str, ctx.strName(name, text), nil)
}

// addJoinedSecName is addSecName of strPrefixes[pre]+rest, a name made
// from the beginning pre and rest: have, when it spells that name already
// (an input section's own), is entered as it is; otherwise the name is
// made only where the additions are not queued (addJoined), or for the
// dots of an obscure function's.
func (ctx *Context) addJoinedSecName(have string, pre strPrefix, rest string, text int32) {
	p := strPrefixes[pre]
	if len(have) == len(p)+len(rest) && strings.HasPrefix(have, p) && strings.HasSuffix(have, rest) {
		ctx.addSecName(have, text)
		return
	}
	if ctx.obscure(text) {
		ctx.addSecName(p+rest, text)
		return
	}
	ctx.addJoinedBoth(ctx.ShStr, ctx.Str, pre, rest)
}

// addDroppedName enters the name of an input symbol that gets no output
// symbol into .strtab, where the release keeps such names
// (Release.NamesOfDropped).
func (ctx *Context) addDroppedName(name string) {
	if ctx.Rel.NamesOfDropped {
		ctx.addStr(ctx.Str, name, nil)
	}
}

// noteProto notes a prototype string of an input's call graph or
// .nv.prototype, in order, for relayoutStrings ("": an empty one, whose
// first appearance places nvlink 12.x's empty prototype string).
func (ctx *Context) noteProto(s string) {
	if !ctx.Rel.StrtabSymbolsLast {
		return
	}
	if ctx.protoNames == nil {
		ctx.protoNames = map[string]bool{}
	}
	if !ctx.protoNames[s] {
		ctx.protoNames[s] = true
		ctx.protoOrder = append(ctx.protoOrder, s)
	}
}

// strName is the .strtab form of the name of a section made for code
// section text: the name itself, or dots when its function is obscure.
func (ctx *Context) strName(name string, text int32) string {
	if ctx.obscure(text) {
		return strings.Repeat(".", len(name))
	}
	return name
}

// obscure reports whether the sections made for code section text (-1:
// none) have their .strtab names written as dots (see strName).
func (ctx *Context) obscure(text int32) bool {
	return text >= 0 && ctx.Secs[text].InfoSym >= 0 && ctx.Syms[ctx.Secs[text].InfoSym].Other&stoCudaObscure != 0
}

// markWeakLosers drops the code sections of weak functions whose
// definition another file wins, and the per-kernel data of losing entries,
// and notes where replaced weak data lies (objRare.lostData).
func markWeakLosers(ctx *Context, o *Obj) {
	dropped := false // (some function's code dropped: its per-kernel data may go too)
	for i := 1; i < len(o.F.Symbols); i++ {
		s := &o.F.Symbols[i]
		if s.Bind() == elf.STBLocal || s.Shndx == elf.SHNUndef || s.Shndx >= elf.SHNLoReserve {
			continue
		}
		r := ctx.res(o, i)
		if r == nil || (r.File == int32(o.ID) && r.Index == int32(i)) {
			continue
		}
		switch {
		case s.Type() == elf.STTFunc:
			o.Drop[s.Shndx] = true
			dropped = true
			if r.File > int32(o.ID) && s.Bind() == elf.STBWeak {
				r := o.more()
				if r.laterWinner == nil {
					r.laterWinner = make([]bool, len(o.F.Sections))
				}
				r.laterWinner[s.Shndx] = true
			}
		case s.Bind() == elf.STBWeak && isDataSym(s):
			// A replaced weak copy of data keeps its bytes but not its
			// relocations (relocate; testdata/crafted/weak-vtables).
			r := o.more()
			r.lostData = append(r.lostData, lostRange{sec: s.Shndx, lo: s.Value, hi: s.Value + s.Size})
		}
	}
	if dropReplacedGlobal(o) {
		dropped = true
	}
	if !dropped {
		return
	}
	// A losing weak entry's per-kernel data (.nv.constant0.<k>,
	// .nv.shared.<k>: sections whose sh_info names its code) goes with it.
	// A losing weak device function's constant bank stays, beside the
	// winner's (funcbank.go).
	for i := range o.F.Sections {
		if sec := &o.F.Sections[i]; !regenerated(sec) && sec.Flags&elf.SHFExecInstr == 0 &&
			sec.Info > 0 && int(sec.Info) < len(o.Drop) && o.Drop[sec.Info] && !o.isFuncBank(i) {
			o.Drop[i] = true
		}
	}
}

// dropReplacedGlobal drops the uninitialized global data sections
// (.nv.global) of o that hold nothing but replaced weak copies (a
// template variable's in every object but the first): nvlink 11.8 gives
// them no room, where one holding other data too keeps the copy's room,
// as initialized data (.nv.global.init) always does (crafted
// weak-global-nobits, weak-vtables). It reports whether it dropped any.
func dropReplacedGlobal(o *Obj) (dropped bool) {
	lost := o.lostRanges()
	if len(lost) == 0 {
		return false
	}
	var other []bool // by section index: holds data not replaced
	for i := 1; i < len(o.F.Symbols); i++ {
		s := &o.F.Symbols[i]
		if !isDataSym(s) || s.Shndx == elf.SHNUndef || int(s.Shndx) >= len(o.F.Sections) || o.inLostData(int(s.Shndx), s.Value) {
			continue
		}
		if other == nil {
			other = make([]bool, len(o.F.Sections))
		}
		other[s.Shndx] = true
	}
	for _, r := range lost {
		if sec := &o.F.Sections[r.sec]; sec.Type == elf.SHTCudaGlobal && (other == nil || !other[r.sec]) {
			o.Drop[r.sec] = true
			dropped = true
		}
	}
	return dropped
}

// replacedCopy reports whether input symbol idx of o is a function whose
// code an earlier file's definition replaced (a weak copy that lost): its
// call edges are dropped, so that what only it calls goes (an inline
// function whose copies call different functions, -G: crafted
// callgraph-replaced-copy). A copy a later file replaces keeps them
// (crafted weak-loser-cleanup).
func (o *Obj) replacedCopy(idx uint32) bool {
	if int(idx) >= len(o.F.Symbols) {
		return false
	}
	s := &o.F.Symbols[idx]
	return s.Type() == elf.STTFunc && s.Shndx != elf.SHNUndef && int(s.Shndx) < len(o.Drop) && o.Drop[s.Shndx] && !o.replacedLater(uint32(s.Shndx))
}

// replacedLater reports a code section of a weak function that a later
// file's definition replaces (see markWeakLosers).
func (o *Obj) replacedLater(sec uint32) bool {
	return o.rare != nil && int(sec) < len(o.rare.laterWinner) && o.rare.laterWinner[sec]
}

// standInData reports per-kernel data (a section whose sh_info names
// code) of a weak entry that a later file's definition replaces: nvlink
// creates its output section when it meets the loser, as for the code
// (standIn).
func (o *Obj) standInData(sec uint32) bool {
	in := &o.F.Sections[sec]
	return in.Flags&elf.SHFExecInstr == 0 && in.Info > 0 && int(in.Info) < len(o.F.Sections) && o.replacedLater(in.Info)
}

// standIn gives a weak function that a later file replaces what nvlink
// gives it: nvlink merges it as the definition it is when its file comes
// (its .text.<f> is created then, with its section symbol, and the names
// of its .nv.info.<f> and relocation sections go into the string tables),
// and the later definition takes over that section. The loser's bytes and
// relocations stay out (o.Drop); its function symbol points at the
// section until the winner fills the record in
// (testdata/crafted/weak-loser-cleanup).
func standIn(ctx *Context, o *Obj, id int32, s *elf.Symbol) {
	sec := newOutSection(ctx, o, int(s.Shndx), viaSectionSym)
	o.SecMap[s.Shndx] = sec
	sym := ctx.Syms[id]
	sym.Sec, sym.Value = sec, 0
	claimCode(ctx, o, sec, id, s, false)
}
