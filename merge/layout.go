package merge

// layout: place data inside the memory-space sections.
//
// Inputs: merged sections, SymMap markers for section-local data.
// Outputs: Context.dataVal (new offsets of local data), section sizes.
// Invariants: .text is never re-laid out. Per-entry shared memory
// (.nv.shared.<k>) grows by the window the architecture reserves
// (1 KiB on sm_90) and holds its variables sorted by alignment, largest
// first, each at the next multiple of its alignment. In a relocatable cubin
// the st_value of an unallocated shared variable is its alignment.
// Common symbols are allocated at the end of .nv.global (created after the
// merged sections when no input had one). Bound texture and surface
// references get their slots in the kernels' constant bank 0 (boundref.go).

import (
	"slices"
	"strings"

	"github.com/warplink/warplink/elf"
)

// reservedShared is the shared memory the driver reserves at the start of
// every CTA's window on the target.
func reservedShared(sm int) uint64 {
	if sm >= 90 {
		return 0x400
	}
	return 0
}

type dataKey struct{ obj, sym int32 }

func layout(ctx *Context) error {
	ctx.dataVal = map[dataKey]uint64{}
	allocateCommons(ctx)
	layoutBoundRefs(ctx)
	checkConstantBanks(ctx)
	layoutShared(ctx)
	layoutFunctionBanks(ctx)
	ctx.secNamesDone = true // (see Context.secNamesDone)
	// --preserve-relocs' shared-data symbols: their laid-out offsets, past
	// the window the driver reserves (as nvlink writes them; the code's
	// own offsets do not include it).
	for _, o := range ctx.Objs {
		for in, id := range o.sharedSyms {
			ctx.Syms[id].Value = ctx.dataVal[dataKey{int32(o.ID), in}] + reservedShared(ctx.Header.SM())
		}
	}
	return nil
}

// moduleShared is the section ptxas puts module-scope __shared__ variables in.
const moduleShared = ".nv_debug.shared"

// externSharedAlign is the alignment nvlink gives extern __shared__ memory,
// whatever the declarations say.
const externSharedAlign = 16

type sharedVar struct {
	key         dataKey
	align, size uint64
	// extern marks an extern __shared__ array: in the module list (it
	// changes the merge sort's ties, crafted shared-extern-ties) but not
	// laid out here.
	extern bool
}

// layoutShared lays out every entry's .nv.shared.<k>. Module-scope shared
// variables (.nv_debug.shared) belong to the entries whose code, or code
// they call, refers to them; that section itself ends up empty (but under
// -g and --preserve-relocs). nvlink 11.8 walks the module variables
// largest first (byPlace) and places first those several entries use, or
// none, in layers (lowest layer without a variable of the same entries;
// the layers one after another, each aligned to its largest alignment),
// each at one offset for all its entries (when a module variable is
// shared, or unused, every entry with shared variables takes the module
// section's alignment); then each entry's own variables (its
// .nv.shared.<k> and the module variables only it uses, in the walk's
// order: largest alignment, then smallest size first, by nvlink's merge
// sort) past the shared ones it uses; then, for entries whose code uses
// extern __shared__, the dynamic shared memory at the next multiple of 16
// — one offset for all entries that share code using it, repeated until
// stable. An entry's section takes its variables' alignment. The section
// grows by the reserved window when not empty.
func layoutShared(ctx *Context) {
	own := map[int32][]sharedVar{} // by .nv.shared.<k> section
	var module []sharedVar
	var moduleSec int32 = -1
	alias := map[dataKey]dataKey{} // another copy of global shared data -> the winner's
	// Which output sections are an entry's .nv.shared.<k> (1) or the
	// module's (2): noted as they were made (noteSecName), not one test
	// per section symbol of every object, nor per output section (whose
	// names, far apart in memory, cost 3 ms at 10,000 objects to compare,
	// and a tenth of layout at 100,000).
	kind := make([]uint8, len(ctx.Secs))
	for _, id := range ctx.sharedSecs {
		kind[id] = 1
		if ctx.Secs[id].Name == moduleShared {
			kind[id] = 2
		}
	}
	// module: the module variables in the order nvlink 11.8 lists them:
	// the objects in file order, each one's in symbol order (one copy of
	// each: another copy's symbol is an alias of the winner's).
	externSeen := map[string]bool{}
	for _, o := range ctx.Objs {
		for i, m := range o.SymMap {
			if s := &o.F.Symbols[i]; isExternShared(s) {
				if !externSeen[s.Name] {
					externSeen[s.Name] = true
					module = append(module, sharedVar{key: dataKey{int32(o.ID), int32(i)}, extern: true})
				}
				continue
			}
			if m > -2 || kind[-2-m] == 0 {
				continue
			}
			sec := -2 - m
			if r := ctx.res(o, i); r != nil && r.File >= 0 && (r.File != int32(o.ID) || r.Index != int32(i)) {
				alias[dataKey{int32(o.ID), int32(i)}] = dataKey{r.File, r.Index}
				continue
			}
			s := &o.F.Symbols[i]
			a := s.Value
			if a == 0 || a&(a-1) != 0 {
				a = min(s.Size, 8)
			}
			v := sharedVar{key: dataKey{int32(o.ID), int32(i)}, align: a, size: s.Size}
			if kind[sec] == 2 {
				module, moduleSec = append(module, v), sec
			} else {
				own[sec] = append(own[sec], v)
			}
		}
	}
	// Entries and the code each can run, only when something needs them.
	type entry struct {
		shared int32          // its .nv.shared.<k>
		code   map[int32]bool // code sections it can run
	}
	var entries []entry
	users := map[dataKey][]int{}  // module variable -> entries using it
	externAt := map[int32][]int{} // code using extern shared -> entries running it
	var externRefs map[int32][]int32
	var varRefs map[int32][]dataKey // code section -> module variables it names
	if len(module) > 0 || ctx.hasExtern {
		varRefs, externRefs = sharedRefs(ctx, alias)
		for _, t := range ctx.textSections() {
			f := ctx.Secs[t].InfoSym
			if f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 {
				continue
			}
			id, ok := ctx.secByName[".nv.shared"+strings.TrimPrefix(ctx.Secs[t].Name, ".text")]
			var code map[int32]bool
			if !ok {
				if code = ctx.reachableCode(t); ctx.Secs[t].Dead || !usesShared(code, varRefs, externRefs) {
					continue
				}
				id = -1 - t // (made in the walk below)
			}
			if code == nil {
				code = ctx.reachableCode(t)
			}
			e := entry{id, code}
			k := len(entries)
			entries = append(entries, e)
			seen := map[dataKey]bool{}
			for c := range e.code {
				for _, v := range varRefs[c] {
					if !seen[v] {
						seen[v] = true
						users[v] = append(users[v], k)
					}
				}
				if len(externRefs[c]) > 0 {
					externAt[c] = append(externAt[c], k)
				}
			}
		}
		if moduleSec >= 0 {
			ctx.Secs[moduleSec].Size = 0
		}
	}
	// Module variables used by several entries: one offset for all.
	var placed []sharedVar         // used by several entries or by none, in byPlace's order
	sharedBy := map[int32]bool{}   // .nv.shared.<k> sections using them
	usesModule := map[int32]bool{} // .nv.shared.<k> sections using module variables
	// nvlink 11.8 walks the module variables from the largest down
	// (byPlace): a variable one entry uses goes to that entry's own list,
	// after the entry's own variables, in that walk's order.
	// A kernel claimCode gave no .nv.shared.<k> gets one when the walk
	// first reaches a variable it uses (lateSharedSection).
	late := func(k int) {
		if id := entries[k].shared; id < 0 {
			id = lateSharedSection(ctx, -1-id)
			kind = append(kind, make([]uint8, int(id)+1-len(kind))...)
			kind[id] = 1
			entries[k].shared = id
		}
	}
	// A variable no code refers to at all (ptxas kept the symbol of a
	// template's temp_storage its code does not use) is left out: it is
	// not one whose code was removed (cub example_block_reduce's warp
	// reductions of 32 and 16 threads; crafted shared-unreferenced).
	referenced := map[dataKey]bool{}
	for _, vs := range varRefs {
		for _, v := range vs {
			referenced[v] = true
		}
	}
	for _, v := range byPlace(module) {
		if v.extern || !referenced[v.key] {
			continue
		}
		u := users[v.key]
		for _, k := range u {
			late(k)
		}
		for _, k := range u {
			usesModule[entries[k].shared] = true
		}
		switch {
		case len(u) == 1:
			own[entries[u[0]].shared] = append(own[entries[u[0]].shared], v)
		case len(u) > 1:
			for _, k := range u {
				sharedBy[entries[k].shared] = true
			}
		}
		if len(u) != 1 {
			placed = append(placed, v)
		}
	}
	for k := range entries {
		late(k) // (extern shared memory alone)
	}
	unowned := len(placed) > 0 // a module variable no entry or several use
	// The variables several entries use, and those none uses (their code
	// removed), go into layers in that walk's order: each into the lowest
	// layer holding no variable of an entry it shares, or a new one. The
	// layers are then laid out one after another, each at the end of the
	// last aligned to the largest alignment among its variables, every
	// variable of a layer at its start. So variables no entry uses
	// together share offsets (two kernels on x, two on y, one on both: y
	// after x; z, used apart, at 0: crafted shared-common-disjoint); a
	// later one goes past the whole layer of those it shares an entry
	// with (x and y of two kernels, a larger z of two others in x's
	// layer: y past z, crafted shared-common-past-all; two groups of
	// kernels sharing layers, crafted shared-layers; a smaller one in the
	// lowest free layer, shared-layer-join), a layer's start takes the
	// alignment of a variable that joins it later (fuzzed programs), and
	// an unused variable takes room in its layer too (the sweep's
	// weak-shared-three with --kernels-used naming two of its three
	// kernels; crafted shared-common-unused).
	type layer struct {
		vars  []sharedVar
		users map[int]bool
		align uint64
	}
	var layers []*layer
	for _, v := range placed {
		u := users[v.key]
		var at *layer
		for _, l := range layers {
			if !slices.ContainsFunc(u, func(k int) bool { return l.users[k] }) {
				at = l
				break
			}
		}
		if at == nil {
			at = &layer{users: map[int]bool{}, align: 1}
			layers = append(layers, at)
		}
		at.vars = append(at.vars, v)
		at.align = max(at.align, v.align)
		for _, k := range u {
			at.users[k] = true
		}
	}
	var commonAlign, layerEnd uint64 // (layerEnd: the end of every variable placed)
	commonTo := map[int32]uint64{}   // .nv.shared.<k> -> end of the shared variables it uses
	for _, l := range layers {
		start := alignUp(layerEnd, l.align)
		for _, v := range l.vars {
			layerEnd = max(layerEnd, start+v.size)
			u := users[v.key]
			if len(u) > 0 || ctx.Opts.PreserveRelocs || ctx.Opts.Debug {
				ctx.dataVal[v.key] = start // (an unused one kept with its symbol: below)
			}
			for _, k := range u {
				sec := entries[k].shared
				commonTo[sec] = max(commonTo[sec], start+v.size)
			}
			if len(u) > 0 {
				commonAlign = max(commonAlign, v.align)
			}
		}
	}
	if unowned {
		// When a module variable is used by several entries or by none
		// (its functions removed), every entry with shared variables
		// takes the alignment of the whole module shared section,
		// whatever it uses of it (testdata/crafted/shared-common-align: a
		// double only a third kernel uses aligns the two sharing a float
		// to 8; crafted shared-module-align: a kernel using only a float
		// of its own too, beside two sharing one; the sweep's
		// shared-module-two with --kernels-used=_Z2k1Pfi: k1 alone, the
		// double's function removed). When each is one entry's own,
		// each keeps its own alignment.
		// (The inputs' own alignment of it: not the 16 that extern
		// __shared__ memory gives the output section, crafted
		// shared-common-extern.)
		for _, p := range ctx.Secs[moduleSec].Pieces {
			commonAlign = max(commonAlign, uint64(ctx.Objs[p.Obj].F.Sections[p.Sec].Addralign))
		}
	}
	if (ctx.Opts.Debug || ctx.Opts.PreserveRelocs) && moduleSec >= 0 {
		// Under -g and --preserve-relocs the module section keeps the
		// variables several entries share, with their symbols, past the
		// reserved window. A variable one entry uses lives in that entry's
		// section: its symbol goes there under --preserve-relocs, and goes
		// under -g alone (sweep shared-chain and the like, -G objects
		// linked with -g; crafted preserve-relocs-module-shared), where
		// nvlink 12.5 moves it there too (Release.DebugEntryShared).
		// Both keep the variables no entry uses there too, at their
		// offsets in the layers, and the section spans every layer
		// (fuzzed shared-memory programs; crafted
		// preserve-relocs-shared-unused, debug-flag-shared-unused).
		if len(placed) > 0 {
			ctx.Secs[moduleSec].Size = layerEnd + reservedShared(ctx.Header.SM())
		}
		for _, v := range module {
			if v.extern {
				continue
			}
			id, ok := ctx.Objs[v.key.obj].sharedSyms[v.key.sym]
			switch u := users[v.key]; {
			case !ok || len(u) != 1:
			case ctx.Opts.PreserveRelocs && len(u) == 1:
				ctx.Syms[id].Sec = entries[u[0]].shared
				if !ctx.Opts.Debug || !ctx.Rel.DebugSharedNotInternal {
					ctx.Syms[id].Other |= stvInternal // (-g or not: 11.8)
				}
			case ctx.Opts.Debug && ctx.Rel.DebugEntryShared:
				ctx.Syms[id].Sec = entries[u[0]].shared
			default:
				ctx.Syms[id].dead = true
			}
		}
	}
	base := reservedShared(ctx.Header.SM())
	end := map[int32]uint64{}
	for _, s := range ctx.Secs {
		if int(s.ID) >= len(kind) || kind[s.ID] != 1 {
			continue // (a section made since is none of these)
		}
		var cur uint64
		if sharedBy[s.ID] {
			cur = commonTo[s.ID]
		}
		items := sortOwn(own[s.ID])
		if len(items) > 0 || sharedBy[s.ID] {
			// The variables laid out there set its alignment, not the
			// input sections' (ptxas may give a kernel's section 8 for
			// variables of 4: fuzzed shared-memory programs, crafted
			// shared-align-from-vars).
			s.Align = 1
		}
		if unowned && (usesModule[s.ID] || len(items) > 0) {
			// (Every entry with shared variables, using module ones or
			// not: a DCT kernel's short array beside module floats two
			// other kernels share gets 4; crafted shared-common-align-all.)
			s.Align = max(s.Align, commonAlign)
		}
		for _, v := range items {
			cur = alignUp(cur, v.align)
			ctx.dataVal[v.key] = cur
			cur += v.size
			s.Align = max(s.Align, v.align)
		}
		if len(items) > 0 || sharedBy[s.ID] {
			s.Size = cur
		}
		end[s.ID] = s.Size
	}
	// Extern shared memory: code run by several entries sees one offset,
	// the largest of theirs, and each such entry's section grows to it,
	// until nothing changes: code using extern memory that shares an
	// entry with other such code gets the same offset (f0 run by k2, k3
	// and k4, f1 by k1, k3 and k4: one offset for all four; fuzzed
	// shared-memory programs, crafted shared-extern-overlap). (The least
	// fixed point: the same whatever the order of the code.)
	ctx.externOff = map[int32]uint64{}
	for changed := true; changed; {
		changed = false
		for c, ks := range externAt {
			var off uint64
			for _, k := range ks {
				off = max(off, alignUp(ctx.Secs[entries[k].shared].Size, externSharedAlign))
			}
			if old, ok := ctx.externOff[c]; !ok || off != old {
				ctx.externOff[c], changed = off, true
			}
			for _, k := range ks {
				s := ctx.Secs[entries[k].shared]
				if s.Size < off {
					s.Size, changed = off, true
				}
				s.Align = max(s.Align, externSharedAlign)
				s.keep = true
			}
		}
	}
	if ctx.hasExtern && unowned && commonAlign >= externSharedAlign {
		// With extern __shared__ memory in the link, the alignment of the
		// whole module section (above: a module variable several entries
		// use, or none) goes to every entry when it is 16 or more, even
		// to one using no shared memory, which gets a .nv.shared.<k> of
		// its own (crafted extern-shared-align-all: Thrust's unused shmem
		// declaration beside CUB's 16-aligned temp_storage of kernels
		// --kernels-used leaves out). Each variable one entry's own, the
		// entries keep their alignment (cuda-samples particles).
		for _, e := range entries {
			s := ctx.Secs[e.shared]
			s.Align, s.keep = max(s.Align, commonAlign), true
		}
	}
	if ctx.Opts.PreserveRelocs && !ctx.Opts.Debug {
		// Under --preserve-relocs alone an extern __shared__ array keeps
		// its symbol when .nv_debug.shared holds variables (several
		// entries' or none's), with the value -1 past the reserved
		// window; else it goes (fuzzed shared-memory programs: 90 of 91
		// with extern memory kept it, crafted preserve-relocs-extern-kept;
		// crafted preserve-relocs-extern-shared).
		// On sm_80 (no reserved window) it always goes (fuzzed programs:
		// none of 79 kept it).
		base := reservedShared(ctx.Header.SM())
		for _, x := range ctx.externSyms {
			ctx.Syms[x].Value = base - 1
			ctx.Syms[x].dead = len(placed) == 0 || base == 0
		}
	}
	if ctx.Opts.Debug && len(ctx.externSyms) > 0 {
		// Under -g each extern __shared__ array is a symbol with one
		// value: the largest offset of the entries that can run code
		// using it, to which all of them grow (crafted
		// debug-flag-extern-shared).
		// The code reads that offset; the symbol holds it past the
		// reserved window when the module section holds shared variables
		// (0x480 for 0x80 of them on sm_90), as it is otherwise (crafted
		// debug-flag-extern-shared, shared-common-extern).
		reach := map[int32][]int{} // extern symbol -> entries
		for c, ks := range externAt {
			for _, x := range externRefs[c] {
				reach[x] = append(reach[x], ks...)
			}
		}
		ctx.externSymOff = map[int32]uint64{}
		for _, x := range ctx.externSyms {
			var v uint64
			for _, k := range reach[x] {
				v = max(v, alignUp(end[entries[k].shared], externSharedAlign))
			}
			ctx.externSymOff[x] = v
			ctx.Syms[x].Value = v
			if len(placed) > 0 {
				// (Variables no kernel uses count: -g keeps them there
				// too; fuzzed -G programs, crafted debug-flag-extern-unused.)
				ctx.Syms[x].Value += base
			}
			for _, k := range reach[x] {
				ctx.Secs[entries[k].shared].Size = max(ctx.Secs[entries[k].shared].Size, v)
			}
		}
		if id, ok := ctx.secByName[moduleShared]; ok {
			// The section spans the reserved window at least; empty
			// without one (sm_80) and shared variables, its symbol goes.
			ctx.Secs[id].Size = max(ctx.Secs[id].Size, base)
			if ctx.Secs[id].Size == 0 && ctx.Secs[id].SymID >= 0 {
				ctx.Syms[ctx.Secs[id].SymID].dead = true
			}
		}
	}
	if ctx.Opts.PreserveRelocs && !ctx.Opts.Debug && ctx.hasExtern {
		// Under --preserve-relocs the .nv_debug.shared of extern
		// __shared__ memory spans the reserved window and keeps its
		// section symbol; without one (sm_80) it goes (crafted
		// preserve-relocs-extern-shared).
		if id, ok := ctx.secByName[moduleShared]; ok {
			ctx.Secs[id].Size = max(ctx.Secs[id].Size, base)
			if ctx.Secs[id].Size == 0 && ctx.Secs[id].SymID >= 0 {
				ctx.Syms[ctx.Secs[id].SymID].dead = true
			}
		}
	}
	for k, w := range alias {
		if v, ok := ctx.dataVal[w]; ok {
			ctx.dataVal[k] = v // (each key written once: order does not matter)
		}
	}
	for _, s := range ctx.Secs {
		module := s.Name == moduleShared && !ctx.Opts.Debug && !ctx.Opts.PreserveRelocs
		if s.keep && s.Size == 0 && s.Align > externSharedAlign && (module || base == 0 && strings.HasPrefix(s.Name, ".nv.shared.")) {
			// A shared section kept empty (extern memory, or the rule
			// above, on sm_80; .nv_debug.shared of extern memory) goes
			// when aligned past 16 (crafted extern-shared-align-32,
			// extern-shared-align-32-sm80).
			s.keep = false
		}
		if strings.HasPrefix(s.Name, ".nv.shared.") && (s.Size > 0 || s.keep) {
			s.Size += base
			if s.Size == 0 && s.SymID >= 0 {
				// Kept empty for extern shared memory alone where no window
				// is reserved (sm_80): the section stays, its symbol does
				// not (testdata/crafted/extern-shared-empty).
				ctx.Syms[s.SymID].dead = true
			}
		}
	}
}

// usesShared reports whether code (an entry's reachable code sections)
// names module-scope or extern shared memory.
func usesShared(code map[int32]bool, varRefs map[int32][]dataKey, externRefs map[int32][]int32) bool {
	for c := range code {
		if len(varRefs[c]) > 0 || len(externRefs[c]) > 0 {
			return true
		}
	}
	return false
}

// lateSharedSection makes the .nv.shared.<k> of a kernel claimCode gave
// none (one --kernels-used leaves out that survives, launched from device
// code) when its code uses shared memory: nvlink 11.8 makes it at layout,
// after every other section, and its section symbol after those of
// .nv.callgraph and .nv.prototype (crafted kernels-used-weak-shared: a
// template kernel's static __shared__ array; Thrust's CUB kernels).
func lateSharedSection(ctx *Context, t int32) int32 {
	n := ".nv.shared" + strings.TrimPrefix(ctx.Secs[t].Name, ".text")
	// (newSection but for the name, entered with the symbol.)
	sh := ctx.allocSec()
	*sh = OutSec{ID: int32(len(ctx.Secs)), Name: n, Type: elf.SHTNobits, Flags: elf.SHFAlloc | elf.SHFWrite, Align: 1,
		InfoSym: -1, InfoSec: t, SymID: -1, Nobits: true}
	ctx.Secs = append(ctx.Secs, sh)
	ctx.secByName[n] = sh.ID
	ctx.lateShared = append(ctx.lateShared, sh.ID) // (its symbol: lateSharedSymbols)
	return sh.ID
}

// lateSharedSymbols enters the names and makes the section symbols of
// lateSharedSection's sections, in the order they were made.
func lateSharedSymbols(ctx *Context) {
	for _, id := range ctx.lateShared {
		sh := ctx.Secs[id]
		ctx.addStr(ctx.ShStr, sh.Name, &sh.nameOff)
		sh.SymID = newSym(ctx, OutSym{Name: sh.Name, Info: elf.STTSection, Sec: id, IsSecSym: true}, false)
	}
}

// sortOwn orders an entry's own variables as nvlink 11.8 lays them out:
// its list (the entry's own, then the module variables only it uses, in
// byPlace's order) sorted by alignment, largest first, then size,
// smallest first, with nvlink's merge sort (testdata/crafted/
// shared-own-order, shared-own-ties).
func sortOwn(vs []sharedVar) []sharedVar {
	return nvlinkSort(vs, func(a, b sharedVar) bool {
		if a.align != b.align {
			return a.align > b.align
		}
		return a.size < b.size
	})
}

// byPlace orders the module variables as nvlink 11.8 walks them to place
// them: the list (module's order) sorted by size, smallest first, with
// nvlink's merge sort, then taken from the end.
func byPlace(l []sharedVar) []sharedVar {
	sorted := nvlinkSort(slices.Clone(l), func(a, b sharedVar) bool { return a.size < b.size })
	slices.Reverse(sorted)
	return sorted
}

// sharedRefs finds, per output code section, the module-scope shared
// variables its relocations name and the extern shared arrays it uses
// (their output symbols: -1 but under -g, mergeExternSharedDebug).
func sharedRefs(ctx *Context, alias map[dataKey]dataKey) (map[int32][]dataKey, map[int32][]int32) {
	vars := map[int32][]dataKey{}
	extern := map[int32][]int32{}
	for _, o := range ctx.Objs {
		o.eachRelocSection(func(t int, rels []elf.Rela) {
			if o.SecMap[t] < 0 || o.F.Sections[t].Flags&elf.SHFExecInstr == 0 {
				return
			}
			c := o.SecMap[t]
			for _, r := range rels {
				if int(r.Sym) >= len(o.SymMap) {
					continue
				}
				if m := o.SymMap[r.Sym]; m <= -2 && ctx.Secs[-2-m].Name == moduleShared {
					k := dataKey{int32(o.ID), int32(r.Sym)}
					if w, ok := alias[k]; ok {
						k = w
					}
					vars[c] = append(vars[c], k)
				} else if isExternShared(&o.F.Symbols[r.Sym]) {
					extern[c] = append(extern[c], o.SymMap[r.Sym])
				}
			}
		})
	}
	return vars, extern
}

// reachableCode is the set of live code sections an entry whose code is
// section t can run: t and the code of every function its call-graph edges
// reach, transitively (as nvlink 11.8 finds them: a call with no edge
// brings nothing, testdata/crafted/shared-through-callgraph).
func (ctx *Context) reachableCode(t int32) map[int32]bool {
	seen := map[int32]bool{t: true}
	f := ctx.Secs[t].InfoSym
	if f < 0 {
		return seen
	}
	visited := map[int32]bool{f: true}
	work := []int32{f}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, g := range ctx.callees.of(f) { // (none for a symbol made after dce)
			if visited[g] {
				continue
			}
			visited[g] = true
			work = append(work, g)
			if c := ctx.Syms[g].Sec; c >= 0 && !ctx.Secs[c].Dead {
				seen[c] = true
			}
		}
	}
	return seen
}

// noteSecName notes output section id, just made with that name, when
// layout will look for it: in bankSecs, a module-scope constant bank
// (.nv.constantN without an entry suffix), in sharedSecs, an entry's
// .nv.shared.<k> or the module's .nv_debug.shared. (While the name is in
// the cache: layout's passes over every section's name took a tenth of
// it at 100,000 objects.)
func (ctx *Context) noteSecName(id int32, name string) {
	switch {
	case isModuleBankName(name):
		ctx.bankSecs = append(ctx.bankSecs, id)
	case isSharedName(name):
		ctx.sharedSecs = append(ctx.sharedSecs, id)
	}
}

// isModuleBankName reports the module-scope constant banks: .nv.constantN
// without an entry's suffix.
func isModuleBankName(n string) bool {
	rest, ok := strings.CutPrefix(n, ".nv.constant")
	return ok && !strings.Contains(rest, ".")
}

// allocateCommons places every global still SHN_COMMON after resolution
// into .nv.global, as nvlink 11.8 does: in reverse order of the symbols'
// creation, each at the next multiple of its alignment (st_value of the
// common that resolution kept: the first one), with the largest size any
// file declared.
func allocateCommons(ctx *Context) {
	var sec *OutSec
	for k := len(ctx.Globals) - 1; k >= 0; k-- {
		s := ctx.Syms[ctx.Globals[k]]
		if s.Shndx != elf.SHNCommon || s.Sec >= 0 {
			continue
		}
		if sec == nil {
			if id, ok := ctx.secByName[".nv.global"]; ok {
				sec = ctx.Secs[id]
			} else {
				sec = ctx.newSection(".nv.global", elf.SHTNobits, elf.SHFAlloc|elf.SHFWrite, 1, 0)
				sec.Nobits = true
				sec.SymID = newSym(ctx, OutSym{Name: sec.Name, Info: elf.STTSection, Sec: sec.ID, IsSecSym: true}, false)
			}
		}
		align := max(s.Value, 1)
		sec.Align = max(sec.Align, align)
		s.Sec, s.Shndx, s.Value = sec.ID, 0, alignUp(sec.Size, align)
		sec.Size = s.Value + s.Size
	}
}

// constantBankLimit is the size of a constant bank.
const constantBankLimit = 0x10000

// checkConstantBanks reports module-scope constant banks (.nv.constantN
// without an entry suffix) larger than a bank.
func checkConstantBanks(ctx *Context) {
	for _, id := range ctx.bankSecs {
		if s := ctx.Secs[id]; s.Size > constantBankLimit {
			ctx.Diags.Errorf([3]int{4, 0, int(s.ID)}, "File uses too much global constant data (0x%x bytes, 0x%x max)", s.Size, constantBankLimit)
		}
	}
}
