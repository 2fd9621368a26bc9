package merge

// mergeFile: one object's symbols and sections brought into the output in
// the order nvlink 11.8 creates them, as successive walks over its symbol
// table and then one over its sections.

import (
	"strings"

	"github.com/warplink/warplink/elf"
)

// mergeFile brings one object into the output in nvlink's order: functions
// (local and global) and other non-data globals, then the locals of
// allocated sections that hold no global data (and local weak data), then
// the names of global data, then (in an object defining no function) its
// debug sections, then the other local symbols, then the global data
// records, then a pass over the sections for what no symbol named.
// Every walk reads the same classification (symbolOrder), computed from
// the object alone, so the walks' predicates do not overlap; each
// symbol's walks are decided once (symWalks), before the first.
func mergeFile(ctx *Context, o *Obj) {
	so := classifySymbols(o, &ctx.walkData)
	so.walks = ctx.symWalks(so)
	mergeFunctions(ctx, o, so)
	mergeEarlyLocals(ctx, o, so)
	mergeGlobalDataNames(ctx, o, so)
	if !so.definesFunc {
		mergeDataOnlyDebug(ctx, o)
	}
	mergeLateSymbols(ctx, o, so)
	mergeSectionRecords(ctx, o)
}

// symbolOrder classifies an object's symbols for mergeFile's walks. It
// depends on the object's own tables only, never on what merge made.
type symbolOrder struct {
	o           *Obj
	definesFunc bool   // the object defines a function (else: debug sections early, mergeDataOnlyDebug)
	holdsData   []bool // by section index: holds global data; nil while none is defined
	walks       []walk // by symbol index: the walks that take it (symWalks)
}

// walk is a set of mergeFile's walks over the symbols, by the predicate
// each walk tests (a symbol may satisfy several: each walk takes it).
type walk uint8

const (
	walkLocalFunc  walk = 1 << iota // isLocalFunc: mergeFunctions
	walkGlobalCode                  // a global that is not data (dataOrder): mergeFunctions
	walkLocalWeak                   // symbolOrder.localWeakData: mergeEarlyLocals
	walkEarly                       // symbolOrder.early: mergeEarlyLocals
	walkGlobalData                  // global data (dataOrder), not local weak data: the names, then the records
	walkLateLocal                   // the other locals of the local part: mergeLateSymbols
	walkPastLocal                   // locals past the local part: mergeLateSymbols
)

// symWalks decides, for each symbol of so's object, which walks take it:
// every predicate depends on the object's own tables only, so it is the
// same before each walk as before the first. The array is the Context's,
// reused from object to object.
func (ctx *Context) symWalks(so symbolOrder) []walk {
	o := so.o
	syms := o.F.Symbols
	w := ctx.walkSyms[:0]
	if cap(w) < len(syms) {
		w = make([]walk, 0, max(len(syms), 256))
	}
	w = w[:len(syms)]
	if len(w) > 0 {
		w[0] = 0 // (the null symbol: no walk)
	}
	nonLocal := o.firstNonLocal() // (inLocalPart, its bound read once)
	inLocal := func(i int) bool {
		if o.localByBinding {
			return inLocalPart(o, i)
		}
		return i < nonLocal
	}
	for i := 1; i < len(syms); i++ {
		s := &syms[i]
		var k walk
		if s.Bind() == elf.STBLocal {
			// (No local is weak data, nor a global that is not data.)
			localFunc := s.Type() == elf.STTFunc
			if localFunc {
				k |= walkLocalFunc
			}
			if so.early(i) {
				k |= walkEarly
			}
			if !localFunc {
				if !inLocal(i) {
					k |= walkPastLocal
				} else if k&walkEarly == 0 {
					k |= walkLateLocal
				}
			}
		} else {
			// (Local weak data is data; no global is early.)
			switch {
			case !dataOrder(s):
				k |= walkGlobalCode
			case s.Bind() == elf.STBWeak && isDataSym(s) && inLocal(i): // so.localWeakData
				k |= walkLocalWeak
			default:
				k |= walkGlobalData
			}
		}
		w[i] = k
	}
	ctx.walkSyms = w
	return w
}

// classifySymbols is o's symbolOrder (but walks); holdsData, when o
// defines global data, is made in *room, reused from object to object.
func classifySymbols(o *Obj, room *[]bool) symbolOrder {
	so := symbolOrder{o: o}
	syms := o.F.Symbols
	for i := 1; i < len(syms); i++ {
		so.definesFunc = so.definesFunc || syms[i].Type() == elf.STTFunc && syms[i].Shndx != elf.SHNUndef
		if sh := syms[i].Shndx; syms[i].Bind() != elf.STBLocal && isDataSym(&syms[i]) && !so.localWeakData(i) && int(sh) < len(o.F.Sections) {
			if so.holdsData == nil {
				n := len(o.F.Sections)
				if cap(*room) < n {
					*room = make([]bool, max(n, 64))
				}
				so.holdsData = (*room)[:n]
				clear(so.holdsData)
			}
			so.holdsData[sh] = true
		}
	}
	return so
}

// localWeakData reports weak data that nvcc put among the locals (virtual
// tables): it is merged in the locals' order.
func (so symbolOrder) localWeakData(i int) bool {
	s := &so.o.F.Symbols[i]
	return s.Bind() == elf.STBWeak && isDataSym(s) && inLocalPart(so.o, i)
}

// early reports the symbols merged before the names of global data: the
// locals of allocated sections, with the local weak data (corpus built
// for sm_80: globals, funcptr, managed, constants, virtual, printf; before
// sm_90 the .nv.constant0.<k> section symbols and _param are among them),
// but not the section symbol of a section that holds global data (sm_80
// constants: .nv.constant3). A local data symbol there still comes first
// (printf's $str in the .nv.global.init of a function-pointer table:
// testdata/crafted/externs-indirect). libcudadevrt's objects keep the
// order observed for them (corpus cdp, both architectures).
func (so symbolOrder) early(i int) bool {
	o := so.o
	s := &o.F.Symbols[i]
	if so.localWeakData(i) {
		return true
	}
	if !o.System && s.Bind() == elf.STBLocal && s.Shndx == elf.SHNUndef && s.Name != "" && inLocalPart(o, i) {
		// A local undefined name (.nv.ptx.const0.size, which -G code
		// of cuda::memcpy_async names) comes with these, before the
		// names of global data, an extern __shared__ array's under -g
		// too (crafted const0-size-name, debug-const0-size-order).
		return true
	}
	sec := o.definingSection(s)
	// (Not the section symbol of an entry's .nv.shared.<k>: a used
	// entry's code made that section already; a removed one's comes
	// with the other locals, after the names of global data: fuzzed
	// shared-memory programs with --kernels-used, crafted
	// shared-removed-name.)
	return !o.System && s.Bind() == elf.STBLocal && s.Type() != elf.STTFunc && inLocalPart(o, i) &&
		sec != nil && sec.Flags&elf.SHFAlloc != 0 && (so.holdsData == nil || !so.holdsData[s.Shndx] || s.Type() != elf.STTSection) &&
		!(s.Type() == elf.STTSection && o.F.SecNameHasPrefix(int(s.Shndx), ".nv.shared."))
}

func isLocalFunc(s *elf.Symbol) bool { return s.Bind() == elf.STBLocal && s.Type() == elf.STTFunc }

// mergeFunctions is the first walk: local functions, and the globals that
// are not data, in symbol order.
func mergeFunctions(ctx *Context, o *Obj, so symbolOrder) {
	for i, w := range so.walks {
		switch {
		case w&walkLocalFunc != 0:
			mergeSymbol(ctx, o, i)
		case w&walkGlobalCode != 0:
			mergeGlobal(ctx, o, i)
		}
	}
}

// mergeEarlyLocals is the second walk: the local weak data and the early
// locals (symbolOrder.early).
func mergeEarlyLocals(ctx *Context, o *Obj, so symbolOrder) {
	syms := o.F.Symbols
	for i, w := range so.walks {
		switch {
		case w&walkLocalWeak != 0:
			// Its section first, with its section symbol (a template
			// variable beside strong data in .nv.global: crafted
			// weak-global-order).
			if sh := syms[i].Shndx; o.definingSection(&syms[i]) != nil && !o.Drop[sh] {
				mapSection(ctx, o, int(sh))
			}
			mergeGlobal(ctx, o, i)
		case w&walkEarly != 0:
			mergeSymbol(ctx, o, i)
		}
	}
}

// mergeGlobalDataNames is the third walk: for global data, the defining
// section and the name now, the record later (mergeLateSymbols).
func mergeGlobalDataNames(ctx *Context, o *Obj, so symbolOrder) {
	syms := o.F.Symbols
	for i, w := range so.walks {
		if w&walkGlobalData == 0 {
			continue
		}
		if o.System && o.inSectionNamed(&syms[i], isGlobalMemoryName) {
			// libcudadevrt's global-memory data: the section now, the
			// names with the records (corpus cdp).
			mapSectionFrom(ctx, o, int(syms[i].Shndx), viaDataSym)
			continue
		}
		if o.definingSection(&syms[i]) != nil && !o.Drop[syms[i].Shndx] {
			mapSectionFrom(ctx, o, int(syms[i].Shndx), viaDataSym)
		}
		if isExternShared(&syms[i]) {
			// nvlink makes its .nv_debug.shared for dynamic shared memory
			// now, in both string tables (crafted extern-shared); under -g
			// with its section symbol (crafted debug-flag-extern-shared).
			ctx.addSecName(moduleShared, -1)
			if ctx.keep.ExternSharedSym {
				// (--preserve-relocs keeps it too: crafted
				// preserve-relocs-extern-shared.)
				externShared(ctx)
				id, _ := ctx.secNamed(moduleShared)
				sectionSymbol(ctx, id, o)
			}
		}
		ctx.hasBoundRefs = ctx.hasBoundRefs || isBoundRef(&syms[i])
		if isExternShared(&syms[i]) {
			// (No output symbol but under -g or --preserve-relocs, which
			// make it, name included.)
			ctx.addDroppedName(syms[i].Name)
		} else {
			ctx.addStr(ctx.Str, syms[i].Name, nil)
		}
	}
}

// mergeDataOnlyDebug: an object that defines no function (-G data alone)
// has its debug sections made now, in section order, each with a section
// symbol, those ptxas gave none (.debug_frame, .nv_debug_info_reg_*) too
// (crafted debug-data-only). Such a symbol stays only when some input's
// own section symbol names the section: an object without device code
// (`int main()` alone) or with data alone keeps none (crafted
// no-device-code; the others are in ctx.unclaimedSecSyms).
func mergeDataOnlyDebug(ctx *Context, o *Obj) {
	syms := o.F.Symbols
	var own []bool // by section index: o has a section symbol for it
	for i := 1; i < len(o.F.Sections); i++ {
		sec := &o.F.Sections[i]
		if sec.Flags&elf.SHFAlloc != 0 || regenerated(sec) || o.Drop[i] || o.SecMap[i] >= 0 {
			continue
		}
		name := o.F.SecName(i)
		if !strings.HasPrefix(name, ".debug_") && !strings.HasPrefix(name, ".nv_debug_") {
			continue
		}
		if own == nil {
			own = make([]bool, len(o.F.Sections))
			for j := range syms {
				if syms[j].Type() == elf.STTSection && int(syms[j].Shndx) < len(own) {
					own[syms[j].Shndx] = true
				}
			}
		}
		prev, ok := ctx.secNamed(name)
		made := !ok || ctx.Secs[prev].SymID < 0 // (the symbol made here)
		sym := sectionSymbol(ctx, mapSection(ctx, o, i), o)
		if made && !own[i] {
			if ctx.unclaimedSecSyms == nil {
				ctx.unclaimedSecSyms = map[int32]bool{}
			}
			ctx.unclaimedSecSyms[sym] = true
		}
	}
}

// mergeLateSymbols is the last three walks: the other locals of the local
// part, the global data records, and the locals ptxas placed among the
// globals (the .nv.constant0.<k> section symbols).
func mergeLateSymbols(ctx *Context, o *Obj, so symbolOrder) {
	for i, w := range so.walks {
		if w&walkLateLocal != 0 {
			mergeSymbol(ctx, o, i)
		}
	}
	for i, w := range so.walks {
		if w&walkGlobalData != 0 {
			mergeGlobal(ctx, o, i)
		}
	}
	for i, w := range so.walks {
		if w&walkPastLocal != 0 {
			mergeSymbol(ctx, o, i)
		}
	}
}

// mergeSectionRecords is the walk over the sections: those no symbol
// named still contribute (debug sections without section symbols, for
// instance), and the regenerated ones bring their function records,
// prototype strings and relocation section names.
func mergeSectionRecords(ctx *Context, o *Obj) {
	for i := 1; i < len(o.F.Sections); i++ {
		s := &o.F.Sections[i]
		switch {
		case !regenerated(s):
			if o.SecMap[i] < 0 && !o.Drop[i] {
				// No section symbol named it: nvlink makes none either.
				mapSectionFrom(ctx, o, i, viaNoSym)
			}
		case s.Type == elf.SHTCudaInfo && ctx.secName(o, i) == ".nv.info":
			noteFunctionInfo(ctx, o, i)
		case s.Type == elf.SHTCudaInfo:
			if t := int(s.Info); t > 0 && t < len(o.F.Sections) && o.SecMap[t] >= 0 && !o.Drop[t] {
				ctx.noteInfoSection(o.SecMap[t], ctx.secName(o, i))
			}
		case s.Type == elf.SHTCudaCallgraph:
			noteCallgraphProtos(ctx, o, s)
		case s.Type == elf.SHTCudaPrototype:
			strs, d := o.strtab(), protoRecords(o, s)
			for off := 0; off+8 <= len(d); off += 8 {
				str, ok := elf.CString(strs, uint32(elf.CallgraphEntryAt(d, off).Callee))
				movePrototype(ctx, d, off, str, ok)
				if ok {
					ctx.noteProto(str)
				}
			}
		case s.Type == elf.SHTRela || s.Type == elf.SHTRel:
			nameRelocSections(ctx, o, i)
		}
	}
}

// noteCallgraphProtos enters the prototype strings of a call graph's
// address-taken (-2) and indirect-call (-3) lists.
func noteCallgraphProtos(ctx *Context, o *Obj, s *elf.Section) {
	strs, d := o.strtab(), protoRecords(o, s)
	for block, off := range elf.CallgraphOffsets(d) {
		if !elf.CallgraphProtoBlock(block) {
			continue
		}
		str, ok := elf.CString(strs, uint32(elf.CallgraphEntryAt(d, off).Callee))
		movePrototype(ctx, d, off, str, ok)
		switch {
		case ok && str != "":
			ctx.noteProto(str)
		case ok:
			ctx.noteProto("")
			// An empty prototype (a kernel whose descriptor data holds)
			// adds nvlink's empty string as the first undefined function
			// does (crafted empty-prototype).
			ctx.addEmptyPrototype()
		}
	}
}

// nameRelocSections enters the names nvlink gives for relocation section
// i: its own, under --preserve-relocs .nv.resolvedrela<target>, and the
// companion nvlink creates and drops. (An empty relocation section names
// nothing: ptxas writes one when it resolved every reference itself, e.g.
// to %reserved_smem_offset_begin.)
func nameRelocSections(ctx *Context, o *Obj, i int) {
	s := &o.F.Sections[i]
	t := int(s.Info)
	if t <= 0 || t >= len(o.F.Sections) || o.Drop[t] && !o.replacedLater(uint32(t)) || s.Size == 0 {
		return
	}
	target := ctx.secName(o, t)
	own, other := preRela, preRel
	if s.Type == elf.SHTRel {
		own, other = other, own // sm_80 and older write REL
	}
	// (The relocation section's own name, as a rule: no concatenation
	// then.)
	ctx.addJoinedSecName(ctx.secName(o, i), own, target, o.SecMap[t])
	if ctx.keep.ResolvedRelocs {
		// --preserve-relocs: nvlink names the section of the relocations
		// it applies right after the kept ones.
		ctx.addJoinedSecName("", preResolved, target, o.SecMap[t])
	}
	// nvlink also names a companion section (created, then dropped):
	// ".rel<target>" when a relocation of code names data not defined
	// yet, the other kind's name when one is resolved at link time in a
	// non-allocated section.
	rels := o.relocs(i)
	if rels == nil {
		return
	}
	nonAlloc := o.F.Sections[t].Flags&elf.SHFAlloc == 0
	companion := preRel // relCompanion
	if nonAlloc {
		companion = other
	}
	for k, r := range rels {
		if ctx.relNeedsCompanion(o, k, r, t, s.Type == elf.SHTRela, nonAlloc) {
			ctx.addJoinedSecName("", companion, target, o.SecMap[t])
			break
		}
	}
}
