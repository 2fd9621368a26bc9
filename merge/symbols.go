package merge

// The symbol step of merge: each input symbol becomes an output symbol
// (or joins the one already created for its name) in nvlink's creation
// order; extern shared arrays and code claims are settled here.

import (
	"strings"

	"github.com/warplink/warplink/elf"
)

// mergeSymbol brings input symbol i of o into the output.
func mergeSymbol(ctx *Context, o *Obj, i int) {
	s := &o.F.Symbols[i]
	switch {
	case s.Type() == elf.STTSection:
		if int(s.Shndx) >= len(o.F.Sections) || s.Shndx == 0 {
			return
		}
		sec := &o.F.Sections[s.Shndx]
		if regenerated(sec) {
			return
		}
		if o.Drop[s.Shndx] {
			if o.standInData(s.Shndx) {
				// The per-kernel data of a weak entry a later file
				// replaces: its section is created here, empty, as the
				// entry's code is (standIn), and the winner's fills it
				// (sm_80's .nv.constant0.<k>, which has a section symbol:
				// testdata/crafted/weak-later-wins).
				newOutSection(ctx, o, int(s.Shndx), viaSectionSym)
			}
			return
		}
		o.SymMap[i] = sectionSymbol(ctx, mapSection(ctx, o, int(s.Shndx)), o)
		delete(ctx.unclaimedSecSyms, o.SymMap[i])
	case s.Bind() == elf.STBLocal:
		if s.Name == "" {
			ctx.addStr(ctx.Str, "", nil)
			return
		}
		if s.Shndx == elf.SHNUndef || s.Shndx >= elf.SHNLoReserve {
			// No record, but nvlink keeps the name (libcudadevrt's
			// .nv.ptx.const0.size), not a PTX label's that ptxas left
			// undefined for -G's .debug_loc ($L__tmpN, in -G builds of
			// Thrust's transform and reduce; no crafted case yet).
			if !strings.HasPrefix(s.Name, "$L__") {
				ctx.addDroppedName(s.Name)
			}
			return
		}
		if o.Drop[s.Shndx] {
			if ctx.keep.InternalData && isDataSym(s) && s.Other&3 == stvInternal {
				// Under --preserve-relocs the parameter block of a weak
				// entry's dropped copy (sm_80's _param in
				// .nv.constant0.<k>) keeps a record, in the section of
				// that name the kept copy fills (the sweep's weak-kernels,
				// weak-later-wins and the like, sm_80; crafted
				// preserve-relocs-weak-param).
				if id, ok := ctx.secNamed(o.F.SecName(int(s.Shndx))); ok {
					newSym(ctx, OutSym{Name: s.Name, Info: s.Info&0xF0 | elf.STTObject, Other: outOther(s), Sec: id,
						Value: s.Value, Size: s.Size, File: int32(o.ID)}, false)
					return
				}
			}
			if isDataSym(s) && o.standInData(s.Shndx) {
				// Data of a replaced weak entry's stand-in section (sm_80's
				// _param in .nv.constant0.<k>): no record, but the name
				// (testdata/crafted/weak-later-wins).
				ctx.addDroppedName(s.Name)
			}
			return
		}
		if s.Type() == elf.STTFunc && o.SecMap[s.Shndx] < 0 {
			// A local function's record comes before its section's.
			o.SymMap[i] = newSym(ctx, OutSym{Name: s.Name, Info: s.Info, Other: s.Other, Size: s.Size, File: int32(o.ID)}, false)
			ctx.keySymbol(o.SymMap[i], o, i)
			sym := ctx.Syms[o.SymMap[i]]
			var id int32
			if prev, ok := ctx.secNamed(o.F.SecName(int(s.Shndx))); ok && ctx.Secs[prev].InfoSym >= 0 {
				// Another object's function has a code section of this
				// name (two local __iAtomicAdd under -G): this one gets
				// a section of its own, as in nvlink
				// (testdata/crafted/local-code-same-name).
				id = mapSectionTo(ctx, o, int(s.Shndx), makeOutSection(ctx, o, int(s.Shndx), viaSectionSym))
			} else {
				id = mapSection(ctx, o, int(s.Shndx))
			}
			sym.Sec, sym.Value = id, s.Value+o.secOff(int(s.Shndx))
			claimCode(ctx, o, id, o.SymMap[i], s, false)
			return
		}
		id := mapSection(ctx, o, int(s.Shndx))
		info, other := s.Info, s.Other
		if isDataSym(s) {
			if ctx.isSharedMemory(id) || (s.Other&3 == stvInternal && !ctx.keep.InternalData) {
				// Shared data lives on as offsets inside the entries'
				// shared memory (see layout); nvlink keeps no symbol for
				// it (but records the name). Local constant data keeps its
				// symbol.
				ctx.addDroppedName(s.Name)
				o.setLocalData(i, id)
				if ctx.keep.SharedSyms && ctx.isSharedMemory(id) {
					// --preserve-relocs and -g keep a symbol for it, at
					// the offset layout gives it (corpus shared; crafted
					// debug-flag-keeps-functions).
					o.keepShared(i, newSym(ctx, OutSym{Name: s.Name, Info: s.Info&0xF0 | elf.STTObject,
						Other: keptSharedOther(ctx, s), Sec: id, Size: s.Size, File: int32(o.ID)}, false))
				}
				return
			}
			info, other = s.Info&0xF0|elf.STTObject, outOther(s)
		}
		sym := ctx.allocSym()
		sym.Name, sym.Info, sym.Other, sym.Sec = s.Name, info, other, id
		sym.Value, sym.Size, sym.File = s.Value+o.secOff(int(s.Shndx)), s.Size, int32(o.ID)
		o.SymMap[i] = addSym(ctx, sym, false)
		ctx.keyLocal(o.SymMap[i], o, i, id)
		claimCode(ctx, o, id, o.SymMap[i], s, false)
	default:
		mergeGlobal(ctx, o, i)
	}
}

// mergeGlobal handles a global or weak symbol: the first appearance makes
// the output record (a placeholder when undefined); the winning definition
// fills it in place, so references made through the placeholder stay valid.
func mergeGlobal(ctx *Context, o *Obj, i int) {
	s := &o.F.Symbols[i]
	if isExternShared(s) {
		externShared(ctx)
		if ctx.keep.ExternSharedSym {
			// (--preserve-relocs keeps it only when .nv_debug.shared
			// holds variables: layoutShared.)
			mergeExternSharedDebug(ctx, o, i)
		}
		return
	}
	r := ctx.res(o, i)
	id, seen := int32(-1), false
	if r != nil {
		id, seen = r.sym, r.sym >= 0
	}
	defined := s.Shndx != elf.SHNUndef
	winner := r != nil && r.File == int32(o.ID) && r.Index == int32(i)
	if !seen {
		typ := s.Type()
		if typ == sttCudaObject {
			typ = elf.STTObject
		}
		if !defined && typ == elf.STTFunc && s.Other&stoCudaEntry == 0 {
			// nvlink 11.8 writes an empty string before the name of the
			// first undefined function of a link (seen in every corpus
			// output that has one, and in none without): the empty
			// prototype string, which call graph entries then name. Not
			// for a kernel (crafted placeholder-after-entry).
			ctx.addEmptyPrototype()
		}
		if !defined && typ == elf.STTFunc && s.Other&stoCudaEntry == 0 && !o.hasPlaceholder() && ctx.keep.Placeholder {
			// Before an object's first new undefined function nvlink makes
			// a nameless local function symbol; it is dropped from the
			// output except under --preserve-relocs or -g, which keep it
			// and point the object's EIATTR_KPARAM_INFO records at it
			// (corpus xcall, printf, virtual, recursion; crafted
			// debug-flag-placeholder). A kernel another object defines
			// (a launch) makes none (cuda-samples cdpAdvancedQuicksort;
			// crafted placeholder-after-entry).
			o.setPlaceholderSym(newSym(ctx, OutSym{Info: elf.STBLocal<<4 | elf.STTFunc, Sec: -1, File: int32(o.ID), emptyName: true}, false))
		}
		sym := ctx.allocSym()
		sym.Name, sym.Info, sym.Other, sym.Sec, sym.File = s.Name, s.Info&0xF0|typ, outOther(s), -1, int32(o.ID)
		if !defined && ctx.Rel.ReservedSmemGlobal && s.Name == reservedSmemName {
			sym.Info, sym.Size = elf.STBGlobal<<4|typ, s.Size
		}
		// The record stays in the array of its first appearance: nvcc puts
		// weak functions among the locals (below .symtab's sh_info), so
		// they stay in the positive array; a reference from the global part
		// puts the record in the negative one.
		id = addSym(ctx, sym, !inLocalPart(o, i))
		ctx.keySymbol(id, o, i) // (where it is among the locals: weak functions)
		if r != nil {
			r.sym = id
		}
	}
	o.SymMap[i] = id
	if defined && isDataSym(s) && o.inSectionNamed(s, func(n string) bool { return n == moduleShared }) {
		// Global shared data (a template's static __shared__ array,
		// weak, in every object that instantiates it) is laid out per
		// entry like local module shared data: no record, the name kept
		// (newSym added it); layout takes the winner's copy and points
		// the others at it (testdata/crafted/weak-shared-data).
		sec := mapSection(ctx, o, int(s.Shndx))
		o.setLocalData(i, sec)
		// Under -g and --preserve-relocs the winner's copy keeps the
		// record (layoutShared decides where, and whether under -g; sweep
		// weak-inline-shared, weak-shared-three); the others leave it be.
		kept := ctx.keep.SharedSyms && r != nil && r.File >= 0
		switch sym := ctx.Syms[id]; {
		case kept && r.File == int32(o.ID) && r.Index == int32(i):
			sym.dead, sym.Sec = false, sec
			sym.Info, sym.Other, sym.Size, sym.File = s.Info&0xF0|elf.STTObject, keptSharedOther(ctx, s), s.Size, int32(o.ID)
			o.keepShared(i, id)
		case kept && r.File < int32(o.ID):
			// (The winner's, in an earlier file, holds it.)
		default:
			sym.dead, sym.Sec = true, sec
		}
		return
	}
	if defined && !winner && o.replacedLater(s.Shndx) {
		standIn(ctx, o, id, s)
		return
	}
	if !defined || !winner {
		return
	}
	sym := ctx.Syms[id]
	// A kernel an earlier object launches (an undefined reference with
	// the entry bit) gets its .nv.shared.<k> as a used kernel does, even
	// when --kernels-used leaves it out (testdata/crafted/kernels-used-launched).
	launched := seen && sym.Sec < 0 && sym.Shndx == 0 && sym.Other&stoCudaEntry != 0
	typ := s.Type()
	if typ == sttCudaObject {
		typ = elf.STTObject
	}
	sym.Info = s.Info&0xF0 | typ
	sym.Other = outOther(s)
	sym.Other |= r.Other & stoCudaObscure
	sym.Size = s.Size
	sym.File = int32(o.ID)
	switch s.Shndx {
	case elf.SHNAbs:
		sym.Shndx = elf.SHNAbs
		sym.Value = s.Value
	case elf.SHNCommon:
		sym.Shndx = elf.SHNCommon
		sym.Value = s.Value
		ctx.hasCommon = true
		sym.Size = r.Size
	default:
		sec := mapSection(ctx, o, int(s.Shndx))
		sym.Sec = sec
		sym.Value = s.Value + o.secOff(int(s.Shndx))
		claimCode(ctx, o, sec, id, s, launched)
	}
}

// isSharedMemory reports the sections of shared memory: per-entry
// .nv.shared.<k> and module-scope .nv_debug.shared.
func (ctx *Context) isSharedMemory(sec int32) bool {
	return isSharedName(ctx.Secs[sec].Name)
}

// stoCudaShared is the memory-space bit of st_other for shared data.
const stoCudaShared = 0x40

// isExternShared reports an extern __shared__ array (dynamic shared
// memory): an undefined global data symbol in shared memory.
func isExternShared(s *elf.Symbol) bool {
	return s.Bind() != elf.STBLocal && s.Shndx == elf.SHNUndef && isDataSym(s) && s.Other&0xF0 == stoCudaShared
}

// sectionSymbol returns output section id's section symbol, made for
// object o when the section has none yet.
func sectionSymbol(ctx *Context, id int32, o *Obj) int32 {
	if s := ctx.Secs[id]; s.SymID < 0 {
		s.SymID = newSecSym(ctx, s.Name, id, int32(o.ID))
		ctx.keySectionSymbol(s.SymID, id)
	}
	return ctx.Secs[id].SymID
}

// keepShared records id as the symbol --preserve-relocs or -g keeps for
// shared data i of o (its value is set after layout: setSharedSymValues,
// which runs only under keepPolicy.SharedSyms, as every call here does).
func (o *Obj) keepShared(i int, id int32) {
	r := o.more()
	if r.sharedSyms == nil {
		r.sharedSyms = map[int32]int32{}
	}
	r.sharedSyms[int32(i)] = id
}

// keptSharedOther is the st_other of a shared-data symbol kept for s:
// STV_INTERNAL under --preserve-relocs, not under -g (corpus shared, cdp).
func keptSharedOther(ctx *Context, s *elf.Symbol) uint8 {
	other := outOther(s)
	if ctx.keep.SharedInternal {
		other |= stvInternal
	}
	return other
}

// mergeExternSharedDebug gives extern __shared__ array i of o, under -g
// or --preserve-relocs, the symbol nvlink 11.8 then keeps: one global
// object per name, in .nv_debug.shared, whose value layout sets (under -g
// its offset past the static shared data of every entry that can run code
// using it).
func mergeExternSharedDebug(ctx *Context, o *Obj, i int) {
	s := &o.F.Symbols[i]
	r := ctx.res(o, i)
	if r != nil && r.sym >= 0 {
		o.SymMap[i] = r.sym
		return
	}
	sec, _ := ctx.secNamed(moduleShared)
	id := newSym(ctx, OutSym{Name: s.Name, Info: s.Info&0xF0 | elf.STTObject, Other: keptSharedOther(ctx, s),
		Sec: sec, File: int32(o.ID)}, !inLocalPart(o, i))
	if r != nil {
		r.sym = id
	}
	o.SymMap[i] = id
	ctx.externSyms = append(ctx.externSyms, id)
}

// externShared notes a reference to extern __shared__ memory. nvlink makes
// no symbol for it (layout resolves each reference to the end of the
// shared data of the kernels running the code) and writes an empty
// .nv_debug.shared, aligned to 16 and without a section symbol.
func externShared(ctx *Context) {
	ctx.hasExtern = true
	id, ok := ctx.secNamed(moduleShared)
	if !ok {
		s := ctx.newSection(moduleShared, elf.SHTNobits, elf.SHFAlloc|elf.SHFWrite, 16, 0)
		s.Nobits = true
		id = s.ID
	}
	ctx.Secs[id].keep = true
	ctx.Secs[id].Align = max(ctx.Secs[id].Align, externSharedAlign)
}

// inLocalPart reports whether symbol i of o lies below its .symtab's
// sh_info, or, for an object whose local part the release reads by
// binding (Obj.localByBinding), whether it is local or a defined weak
// symbol (nvlink 13.0 lists weak functions and virtual tables among the
// locals, in input order, as 11.8 does for nvcc 11.8's objects, which
// have them below sh_info: corpus cuda13.0-sm_90 weakregs, virtual).
func inLocalPart(o *Obj, i int) bool {
	if o.localByBinding {
		s := &o.F.Symbols[i]
		return s.Bind() == elf.STBLocal || s.Bind() == elf.STBWeak && s.Shndx != elf.SHNUndef
	}
	return i < o.firstNonLocal()
}

// firstNonLocal is the index of the first symbol past the local part
// (sh_info of .symtab), clamped to the table.
func (o *Obj) firstNonLocal() int {
	if o.F.SymtabIndex <= 0 {
		return 0
	}
	return min(int(o.F.Sections[o.F.SymtabIndex].Info), len(o.F.Symbols))
}

// claimCode makes function symbol id the one a code section's sh_info
// names, the first time a function is defined in it. An entry gets its
// .nv.info.<k> and .nv.shared.<k> then (the shared one is dropped if it
// stays empty).
func claimCode(ctx *Context, o *Obj, sec, id int32, s *elf.Symbol, launched bool) {
	if !ctx.Secs[sec].LinkSymtab || ctx.Secs[sec].InfoSym >= 0 || s.Type() != elf.STTFunc {
		return
	}
	ctx.Secs[sec].InfoSym = id
	if s.Other&stoCudaEntry != 0 && (launched || ctx.keep.EveryKernelUsed || ctx.Opts.kernelUsed(s.Name)) {
		// (Kernels left out by --kernels-used are handled as plain
		// functions; the host objects' information is not used yet:
		// crafted host-info.)
		n := ctx.joinName(".nv.shared", strings.TrimPrefix(ctx.Secs[sec].Name, ".text"))
		i, ok := ctx.inputSectionNamed(o, n)
		own := ok && !o.Drop[i]
		// (Unless o has the section, whose hash hashObject made: its slot
		// asked for ahead of the lookup below, its hash made once for
		// both the lookup and the new section's filing.)
		var h uint32
		if !own {
			h = secNameHash(n)
			ctx.secNames.prefetch(h)
		}
		ctx.noteInfoSection(sec, "")
		if own {
			ctx.dropName(n)
			mapSection(ctx, o, i)
		} else if _, ok := ctx.secNames.find(ctx.Secs, h, n); ok {
			ctx.dropName(n)
		} else {
			// Created empty; it stays only if layout puts module-scope or
			// extern shared memory in it.
			sh := ctx.allocSec()
			genSection(sh, n, elf.SHTNobits, elf.SHFAlloc|elf.SHFWrite, 1, 0)
			ctx.pinName(n)
			ctx.addSectionHashed(sh, h)
			sh.Nobits = true
			sh.infoObj, sh.infoIn = int32(o.ID), int32(s.Shndx)
			sh.SymID = newSecSym(ctx, n, sh.ID, int32(o.ID))
		}
	}
}

// inputSectionNamed is o.sectionNamed(name), skipping the sections whose
// names the walk knows to be of another length (hashObject) when o is the
// object the walk is at.
func (ctx *Context) inputSectionNamed(o *Obj, name string) (int, bool) {
	w := &ctx.walk
	if w.o != o || len(w.h) != len(o.F.Sections) || len(w.h) > 64 || name == "" {
		return o.sectionNamed(name)
	}
	// The last of a repeated name, as sectionNamed.
	for i := len(w.h) - 1; i > 0; i-- {
		if v := w.h[i]; v&nameKnown != 0 && int(v>>nameLenShift) != len(name) {
			continue
		}
		if o.F.SecNameIs(i, name) {
			return i, true
		}
	}
	return 0, false
}

// sectionNamed finds an input section by name (the last one when a
// malformed input repeats it): a scan for the usual object of a few tens
// of sections, a map built on first use for larger ones.
func (o *Obj) sectionNamed(name string) (int, bool) {
	if len(o.F.Sections) <= 64 {
		// The last of a repeated name, as the map below keeps it.
		for i := len(o.F.Sections) - 1; i >= 0; i-- {
			if o.F.SecNameIs(i, name) {
				return i, true
			}
		}
		return 0, false
	}
	r := o.more()
	if r.secByName == nil {
		r.secByName = make(map[string]int, len(o.F.Sections))
		for i := range o.F.Sections {
			r.secByName[o.F.SecName(i)] = i
		}
	}
	i, ok := r.secByName[name]
	return i, ok
}

// outOther is st_other as an executable keeps it: the CUDA memory-space
// bits of data symbols are dropped.
func outOther(s *elf.Symbol) uint8 {
	if isDataSym(s) {
		return s.Other &^ 0xF0
	}
	return s.Other
}
