package merge

// layoutShared: per-entry shared memory (.nv.shared.<k>), module-scope
// shared variables (.nv_debug.shared) and extern __shared__ memory, laid
// out as nvlink 11.8 does, one named step after another.

import (
	"slices"
	"strings"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/prefetch"
)

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
	sv := collectSharedVars(ctx)
	n := len(sv.module) + len(sv.alias)
	for _, l := range sv.own {
		n += len(l)
	}
	ctx.dataVal = make(map[dataKey]uint64, n) // (sized: no growth)
	su := findSharedUsers(ctx, &sv)
	mp := placeModuleVars(ctx, &sv, &su)
	ly := layoutSharedLayers(ctx, sv, su, mp.placed)
	if ctx.keep.SharedSyms {
		keepModuleSharedSyms(ctx, sv, su, mp.placed, ly.end)
	}
	entryEnd := layoutEntryShared(ctx, &sv, mp, ly)
	layoutExternShared(ctx, su)
	alignEntriesToModule(ctx, su, ly, len(mp.placed) > 0)
	externSharedSyms(ctx, su, entryEnd, len(mp.placed) > 0)
	for k, w := range sv.alias {
		if v, ok := ctx.dataVal[w]; ok {
			ctx.dataVal[k] = v // (each key written once: order does not matter)
		}
	}
	growSharedWindows(ctx, &sv)
}

// sharedVars is what collectSharedVars finds in the inputs.
type sharedVars struct {
	own       [][]sharedVar       // each entry section's own, by its slot (kind)
	module    []sharedVar         // the module variables, in nvlink 11.8's list order
	moduleSec int32               // .nv_debug.shared, or -1 when no variable is there
	alias     map[dataKey]dataKey // another copy of global shared data -> the winner's
	// kind marks which output sections are an entry's .nv.shared.<k>
	// (kindEntry, or 2+k once it has own variables, in own[k]) or the
	// module's (kindModule); placeModuleVars extends it for the sections
	// it makes. (A dense table by section ID: no map lookups or growth
	// for the 80,000 shared sections of 100,000 objects.)
	kind []int32
	// secs lists the sections kind marks, each once: the entries', the
	// module's, then those placeModuleVars makes; layout's walks
	// over them, not over every output section record (280,000 records
	// at 100,000 objects, of which 80,000 shared).
	secs []int32
}

// The kinds of output section sharedVars.kind tells apart (0: neither).
const (
	kindModule = -1
	kindEntry  = 1
)

// addOwn appends v to entry section sec's own variables.
func (sv *sharedVars) addOwn(sec int32, v sharedVar) {
	k := sv.kind[sec]
	if k < 2 {
		k = 2 + int32(len(sv.own))
		sv.kind[sec] = k
		sv.own = append(sv.own, nil)
	}
	sv.own[k-2] = append(sv.own[k-2], v)
}

// ownOf is entry section sec's own variables.
func (sv *sharedVars) ownOf(sec int32) []sharedVar {
	if k := sv.kind[sec]; k >= 2 {
		return sv.own[k-2]
	}
	return nil
}

// collectSharedVars lists every shared variable: each entry's own by its
// section, and the module variables in the order nvlink 11.8 lists them
// (the objects in file order, each one's in symbol order; one copy of
// each, another copy's symbol an alias of the winner's; extern __shared__
// arrays once each, by name).
func collectSharedVars(ctx *Context) sharedVars {
	sv := sharedVars{moduleSec: -1, alias: map[dataKey]dataKey{}}
	// (The kinds noted as the sections were made, noteSecName, not one test
	// per section symbol of every object, nor per output section: their
	// names, far apart in memory, cost 3 ms at 10,000 objects to compare,
	// and a tenth of layout at 100,000.)
	sv.kind = make([]int32, len(ctx.Secs))
	// (noteSecName notes each section once, in one list.)
	for _, id := range ctx.sharedSecs {
		sv.kind[id] = kindEntry
	}
	for _, id := range ctx.moduleSharedSecs {
		sv.kind[id] = kindModule
	}
	sv.secs = slices.Concat(ctx.sharedSecs, ctx.moduleSharedSecs)
	// (Extern arrays by name: by resolution, one a global name, as the
	// inputs' names are gone, releaseNames.)
	// Only the symbol map is read for every symbol: local data is marked
	// there, and extern arrays are looked for only when merge met one
	// (Context.hasExtern); the objects' records and maps are asked for
	// ahead (prefetchObj), as the walk misses the caches at every object.
	externSeen := map[int32]bool{}
	for k, o := range ctx.Objs {
		prefetchObj(ctx.Objs, k+4)
		if j := k + 2; j < len(ctx.Objs) {
			prefetch.Slice(ctx.Objs[j].SymMap)
		}
		for i, m := range o.SymMap {
			sec, local := localDataOf(m)
			if !local {
				if s := &o.F.Symbols[i]; ctx.hasExtern && isExternShared(s) {
					if r := o.resID[i]; !externSeen[r] {
						externSeen[r] = true
						sv.module = append(sv.module, sharedVar{key: dataKey{int32(o.ID), int32(i)}, extern: true})
					}
				}
				continue
			}
			if sv.kind[sec] == 0 {
				continue
			}
			if r := ctx.res(o, i); r != nil && r.File >= 0 && (r.File != int32(o.ID) || r.Index != int32(i)) {
				sv.alias[dataKey{int32(o.ID), int32(i)}] = dataKey{r.File, r.Index}
				continue
			}
			s := &o.F.Symbols[i]
			a := s.Value
			if a == 0 || a&(a-1) != 0 {
				a = min(s.Size, 8)
			}
			v := sharedVar{key: dataKey{int32(o.ID), int32(i)}, align: a, size: s.Size}
			if sv.kind[sec] == kindModule {
				sv.module, sv.moduleSec = append(sv.module, v), sec
			} else {
				sv.addOwn(sec, v)
			}
		}
	}
	return sv
}

// sharedEntry is an entry that uses shared memory.
type sharedEntry struct {
	shared int32          // its .nv.shared.<k>; -1-t until made for code section t (placeModuleVars)
	code   map[int32]bool // code sections it can run
}

// sharedUsers is what findSharedUsers finds: the entries and who uses what.
type sharedUsers struct {
	entries    []sharedEntry
	users      map[dataKey][]int // module variable -> entries using it, in entry order
	externAt   map[int32][]int   // code using extern shared memory -> entries running it
	externRefs map[int32][]int32 // code -> the extern shared symbols it uses
	referenced map[dataKey]bool  // module variables some code names
}

// findSharedUsers finds the entries and the code each can run, only when
// a module variable or extern shared memory needs them: an entry with no
// .nv.shared.<k> counts when its code uses either. The module section's
// size is reset: its variables are laid out in the entries' sections.
func findSharedUsers(ctx *Context, sv *sharedVars) sharedUsers {
	su := sharedUsers{users: map[dataKey][]int{}, externAt: map[int32][]int{}}
	if len(sv.module) == 0 && !ctx.hasExtern {
		return su
	}
	var varRefs map[int32][]dataKey
	varRefs, su.externRefs = sharedRefs(ctx, sv.alias)
	su.referenced = map[dataKey]bool{}
	for _, vs := range varRefs {
		for _, v := range vs {
			su.referenced[v] = true
		}
	}
	for _, t := range ctx.liveTexts {
		f := ctx.Secs[t].InfoSym
		if f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 {
			continue
		}
		id, ok := ctx.secNamed(".nv.shared" + strings.TrimPrefix(ctx.Secs[t].Name, ".text"))
		var code map[int32]bool
		if !ok {
			if code = ctx.reachableCode(t); ctx.Secs[t].Dead || !usesShared(code, varRefs, su.externRefs) {
				continue
			}
			id = -1 - t // (made by placeModuleVars)
		}
		if code == nil {
			code = ctx.reachableCode(t)
		}
		e := sharedEntry{id, code}
		k := len(su.entries)
		su.entries = append(su.entries, e)
		seen := map[dataKey]bool{}
		for c := range e.code {
			for _, v := range varRefs[c] {
				if !seen[v] {
					seen[v] = true
					su.users[v] = append(su.users[v], k)
				}
			}
			if len(su.externRefs[c]) > 0 {
				su.externAt[c] = append(su.externAt[c], k)
			}
		}
	}
	if sv.moduleSec >= 0 {
		ctx.Secs[sv.moduleSec].Size = 0
	}
	return su
}

// modulePlacement is where placeModuleVars sends the module variables.
type modulePlacement struct {
	placed     []sharedVar    // used by several entries or by none, in byPlace's order
	sharedBy   map[int32]bool // .nv.shared.<k> sections using placed variables
	usesModule map[int32]bool // .nv.shared.<k> sections using module variables
}

// placeModuleVars walks the module variables as nvlink 11.8 does, from
// the largest down (byPlace): a variable one entry uses goes to that
// entry's own list (sv.own), after the entry's own variables, in the
// walk's order; the others are placed in layers (layoutSharedLayers).
// A kernel claimCode gave no .nv.shared.<k> gets one when the walk first
// reaches a variable it uses, or after the walk when it uses only extern
// shared memory (lateSharedSection; recorded in su.entries and sv.kind).
func placeModuleVars(ctx *Context, sv *sharedVars, su *sharedUsers) modulePlacement {
	mp := modulePlacement{sharedBy: map[int32]bool{}, usesModule: map[int32]bool{}}
	late := func(k int) {
		if id := su.entries[k].shared; id < 0 {
			id = lateSharedSection(ctx, -1-id)
			sv.kind = append(sv.kind, make([]int32, int(id)+1-len(sv.kind))...)
			sv.kind[id] = kindEntry
			sv.secs = append(sv.secs, id)
			su.entries[k].shared = id
		}
	}
	for _, v := range byPlace(sv.module) {
		if v.extern || !su.referenced[v.key] {
			// A variable no code refers to at all (ptxas kept the symbol
			// of a template's temp_storage its code does not use) is left
			// out: it is not one whose code was removed (cub
			// example_block_reduce's warp reductions of 32 and 16
			// threads; crafted shared-unreferenced).
			continue
		}
		u := su.users[v.key]
		for _, k := range u {
			late(k)
		}
		for _, k := range u {
			mp.usesModule[su.entries[k].shared] = true
		}
		switch {
		case len(u) == 1:
			sec := su.entries[u[0]].shared
			sv.addOwn(sec, v)
		case len(u) > 1:
			for _, k := range u {
				mp.sharedBy[su.entries[k].shared] = true
			}
		}
		if len(u) != 1 {
			mp.placed = append(mp.placed, v)
		}
	}
	for k := range su.entries {
		late(k) // (extern shared memory alone)
	}
	return mp
}

// sharedLayers is what layoutSharedLayers sets.
type sharedLayers struct {
	end         uint64           // the end of every variable placed
	commonAlign uint64           // the alignment every entry with shared variables takes
	commonTo    map[int32]uint64 // .nv.shared.<k> -> end of the placed variables it uses
}

// layoutSharedLayers gives the placed variables (several entries use
// them, or none: their code removed) their offsets, one for all their
// entries. They go into layers in byPlace's order: each into the lowest
// layer holding no variable of an entry it shares, or a new one. The
// layers are then laid out one after another, each at the end of the
// last aligned to the largest alignment among its variables, every
// variable of a layer at its start. So variables no entry uses together
// share offsets (two kernels on x, two on y, one on both: y after x; z,
// used apart, at 0: crafted shared-common-disjoint); a later one goes
// past the whole layer of those it shares an entry with (x and y of two
// kernels, a larger z of two others in x's layer: y past z, crafted
// shared-common-past-all; two groups of kernels sharing layers, crafted
// shared-layers; a smaller one in the lowest free layer,
// shared-layer-join), a layer's start takes the alignment of a variable
// that joins it later (fuzzed programs), and an unused variable takes
// room in its layer too (the sweep's weak-shared-three with
// --kernels-used naming two of its three kernels; crafted
// shared-common-unused).
func layoutSharedLayers(ctx *Context, sv sharedVars, su sharedUsers, placed []sharedVar) sharedLayers {
	type layer struct {
		vars  []sharedVar
		users map[int]bool
		align uint64
	}
	var layers []*layer
	for _, v := range placed {
		u := su.users[v.key]
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
	ly := sharedLayers{commonTo: map[int32]uint64{}}
	for _, l := range layers {
		start := alignUp(ly.end, l.align)
		for _, v := range l.vars {
			ly.end = max(ly.end, start+v.size)
			u := su.users[v.key]
			if len(u) > 0 || ctx.keep.SharedSyms {
				ctx.dataVal[v.key] = start // (an unused one kept with its symbol: keepModuleSharedSyms)
			}
			for _, k := range u {
				sec := su.entries[k].shared
				ly.commonTo[sec] = max(ly.commonTo[sec], start+v.size)
			}
			if len(u) > 0 {
				ly.commonAlign = max(ly.commonAlign, v.align)
			}
		}
	}
	if len(placed) > 0 {
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
		for _, p := range ctx.Secs[sv.moduleSec].Pieces() {
			ly.commonAlign = max(ly.commonAlign, uint64(ctx.Objs[p.Obj].F.Sections[p.Sec].Addralign))
		}
	}
	return ly
}

// keepModuleSharedSyms: under -g and --preserve-relocs the module section
// keeps the variables several entries share, with their symbols, past the
// reserved window. A variable one entry uses lives in that entry's
// section: its symbol goes there under --preserve-relocs, and goes under
// -g alone (sweep shared-chain and the like, -G objects linked with -g;
// crafted preserve-relocs-module-shared), where nvlink 12.5 moves it there
// too (Release.DebugEntryShared). Both keep the variables no entry uses
// there too, at their offsets in the layers, and the section spans every
// layer (fuzzed shared-memory programs; crafted
// preserve-relocs-shared-unused, debug-flag-shared-unused).
func keepModuleSharedSyms(ctx *Context, sv sharedVars, su sharedUsers, placed []sharedVar, layerEnd uint64) {
	if sv.moduleSec < 0 {
		return
	}
	if len(placed) > 0 {
		ctx.Secs[sv.moduleSec].Size = layerEnd + reservedShared(ctx.Header.SM())
	}
	for _, v := range sv.module {
		if v.extern {
			continue
		}
		id, ok := ctx.Objs[v.key.obj].sharedSym(v.key.sym)
		switch u := su.users[v.key]; {
		case !ok || len(u) != 1:
		case ctx.keep.EntrySharedSym:
			ctx.Syms[id].Sec = su.entries[u[0]].shared
			if ctx.keep.EntrySharedInternal {
				ctx.Syms[id].Other |= stvInternal
			}
		default:
			ctx.Syms[id].dead = true
		}
	}
}

// externAtOffset reports whether extern __shared__ arrays get one offset
// each, past every entry that can use them (-g: keepPolicy's
// ExternSharedAtOffset), where there are any: layoutEntryShared then keeps
// the entries' sizes for externSharedSyms.
func (ctx *Context) externAtOffset() bool {
	return ctx.keep.ExternSharedAtOffset && len(ctx.externSyms) > 0
}

// layoutEntryShared lays out each entry's .nv.shared.<k>: its own
// variables (sortOwn's order) past the placed ones it uses, each at the
// next multiple of its alignment. It returns each section's size (not yet
// grown by extern shared memory or the reserved window) when
// externSharedSyms will ask for it (-g with extern shared memory), else
// nil.
func layoutEntryShared(ctx *Context, sv *sharedVars, mp modulePlacement, ly sharedLayers) map[int32]uint64 {
	unowned := len(mp.placed) > 0
	var end map[int32]uint64
	if ctx.externAtOffset() {
		end = map[int32]uint64{}
	}
	// (Without placed variables or the ends asked for, a section with no
	// variables of its own nor placed ones keeps its size and alignment.)
	all := unowned || end != nil
	for _, id := range sv.secs {
		if sv.kind[id] < kindEntry || sv.kind[id] == kindEntry && !all && !mp.sharedBy[id] {
			continue // (a section without variables is left as it is)
		}
		s := ctx.Secs[id]
		var cur uint64
		if mp.sharedBy[s.ID] {
			cur = ly.commonTo[s.ID]
		}
		items := sortOwn(sv.ownOf(s.ID))
		if len(items) > 0 || mp.sharedBy[s.ID] {
			// The variables laid out there set its alignment, not the
			// input sections' (ptxas may give a kernel's section 8 for
			// variables of 4: fuzzed shared-memory programs, crafted
			// shared-align-from-vars).
			s.Align = 1
		}
		if unowned && (mp.usesModule[s.ID] || len(items) > 0) {
			// (Every entry with shared variables, using module ones or
			// not: a DCT kernel's short array beside module floats two
			// other kernels share gets 4; crafted shared-common-align-all.)
			s.Align = max(s.Align, ly.commonAlign)
		}
		for _, v := range items {
			cur = alignUp(cur, v.align)
			ctx.dataVal[v.key] = cur
			cur += v.size
			s.Align = max(s.Align, v.align)
		}
		if len(items) > 0 || mp.sharedBy[s.ID] {
			s.Size = cur
		}
		if end != nil {
			end[s.ID] = s.Size
		}
	}
	return end
}

// layoutExternShared places extern shared memory (ctx.externOff): code
// run by several entries sees one offset, the largest of theirs, and each
// such entry's section grows to it, until nothing changes: code using
// extern memory that shares an entry with other such code gets the same
// offset (f0 run by k2, k3 and k4, f1 by k1, k3 and k4: one offset for
// all four; fuzzed shared-memory programs, crafted shared-extern-overlap).
// (The least fixed point: the same whatever the order of the code.)
func layoutExternShared(ctx *Context, su sharedUsers) {
	ctx.externOff = map[int32]uint64{}
	for changed := true; changed; {
		changed = false
		for c, ks := range su.externAt {
			var off uint64
			for _, k := range ks {
				off = max(off, alignUp(ctx.Secs[su.entries[k].shared].Size, externSharedAlign))
			}
			if old, ok := ctx.externOff[c]; !ok || off != old {
				ctx.externOff[c], changed = off, true
			}
			for _, k := range ks {
				s := ctx.Secs[su.entries[k].shared]
				if s.Size < off {
					s.Size, changed = off, true
				}
				s.Align = max(s.Align, externSharedAlign)
				s.keep = true
			}
		}
	}
}

// alignEntriesToModule: with extern __shared__ memory in the link, the
// alignment of the whole module section (a module variable several
// entries use, or none: placed) goes to every entry when it is 16 or
// more, even to one using no shared memory, which gets a .nv.shared.<k>
// of its own (crafted extern-shared-align-all: Thrust's unused shmem
// declaration beside CUB's 16-aligned temp_storage of kernels
// --kernels-used leaves out). Each variable one entry's own, the entries
// keep their alignment (cuda-samples particles).
func alignEntriesToModule(ctx *Context, su sharedUsers, ly sharedLayers, placed bool) {
	if !ctx.hasExtern || !placed || ly.commonAlign < externSharedAlign {
		return
	}
	for _, e := range su.entries {
		s := ctx.Secs[e.shared]
		s.Align, s.keep = max(s.Align, ly.commonAlign), true
	}
}

// externSharedSyms gives the extern __shared__ arrays' symbols, and the
// module section kept for them, the values and sizes nvlink writes under
// --preserve-relocs or -g. entryEnd is each entry section's size before
// extern memory; placed tells whether the module section holds variables
// (several entries' or none's).
func externSharedSyms(ctx *Context, su sharedUsers, entryEnd map[int32]uint64, placed bool) {
	base := reservedShared(ctx.Header.SM())
	if ctx.keep.ExternSharedPastWindow {
		// Under --preserve-relocs alone an extern __shared__ array keeps
		// its symbol when .nv_debug.shared holds variables (several
		// entries' or none's), with the value -1 past the reserved
		// window; else it goes (fuzzed shared-memory programs: 90 of 91
		// with extern memory kept it, crafted preserve-relocs-extern-kept;
		// crafted preserve-relocs-extern-shared).
		// On sm_80 (no reserved window) it always goes (fuzzed programs:
		// none of 79 kept it).
		for _, x := range ctx.externSyms {
			ctx.Syms[x].Value = base - 1
			ctx.Syms[x].dead = !placed || base == 0
		}
	}
	if ctx.externAtOffset() {
		// Under -g each extern __shared__ array is a symbol with one
		// value: the largest offset of the entries that can run code
		// using it, to which all of them grow (crafted
		// debug-flag-extern-shared).
		// The code reads that offset; the symbol holds it past the
		// reserved window when the module section holds shared variables
		// (0x480 for 0x80 of them on sm_90), as it is otherwise (crafted
		// debug-flag-extern-shared, shared-common-extern).
		reach := map[int32][]int{} // extern symbol -> entries
		for c, ks := range su.externAt {
			for _, x := range su.externRefs[c] {
				reach[x] = append(reach[x], ks...)
			}
		}
		ctx.externSymOff = map[int32]uint64{}
		for _, x := range ctx.externSyms {
			var v uint64
			for _, k := range reach[x] {
				v = max(v, alignUp(entryEnd[su.entries[k].shared], externSharedAlign))
			}
			ctx.externSymOff[x] = v
			ctx.Syms[x].Value = v
			if placed {
				// (Variables no kernel uses count: -g keeps them there
				// too; fuzzed -G programs, crafted debug-flag-extern-unused.)
				ctx.Syms[x].Value += base
			}
			for _, k := range reach[x] {
				ctx.Secs[su.entries[k].shared].Size = max(ctx.Secs[su.entries[k].shared].Size, v)
			}
		}
		// The section spans the reserved window at least; empty without
		// one (sm_80) and shared variables, its symbol goes.
		spanModuleShared(ctx, base)
	}
	if ctx.keep.ExternSharedPastWindow && ctx.hasExtern {
		// Under --preserve-relocs the .nv_debug.shared of extern
		// __shared__ memory spans the reserved window and keeps its
		// section symbol; without one (sm_80) it goes (crafted
		// preserve-relocs-extern-shared).
		spanModuleShared(ctx, base)
	}
}

// spanModuleShared grows .nv_debug.shared, if any, to the reserved window
// base; left empty, its section symbol goes.
func spanModuleShared(ctx *Context, base uint64) {
	if id, ok := ctx.secNamed(moduleShared); ok {
		ctx.Secs[id].Size = max(ctx.Secs[id].Size, base)
		if ctx.Secs[id].Size == 0 && ctx.Secs[id].SymID >= 0 {
			ctx.Syms[ctx.Secs[id].SymID].dead = true
		}
	}
}

// growSharedWindows grows every .nv.shared.<k> that holds anything, or is
// kept for extern shared memory, by the window the driver reserves.
// (sv.secs are every section so named, sv.kind tells which are which.)
func growSharedWindows(ctx *Context, sv *sharedVars) {
	base := reservedShared(ctx.Header.SM())
	for _, id := range sv.secs {
		s := ctx.Secs[id]
		entry := sv.kind[id] >= kindEntry // (named .nv.shared.<k>)
		module := sv.kind[id] == kindModule && !ctx.keep.SharedSyms
		if s.keep && s.Size == 0 && s.Align > externSharedAlign && (module || base == 0 && entry) {
			// A shared section kept empty (extern memory, or
			// alignEntriesToModule, on sm_80; .nv_debug.shared of extern
			// memory) goes when aligned past 16 (crafted
			// extern-shared-align-32, extern-shared-align-32-sm80).
			s.keep = false
		}
		if entry && (s.Size > 0 || s.keep) {
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
	ctx.pinName(n)
	ctx.Secs = appendRecord(ctx.Secs, sh)
	ctx.setSecName(sh.ID)
	ctx.lateShared = append(ctx.lateShared, sh.ID) // (its symbol: lateSharedSymbols)
	return sh.ID
}

// lateSharedSymbols enters the names and makes the section symbols of
// lateSharedSection's sections, in the order they were made.
func lateSharedSymbols(ctx *Context) {
	for _, id := range ctx.lateShared {
		sh := ctx.Secs[id]
		ctx.addStr(ctx.ShStr, sh.Name, &sh.nameOff)
		sh.SymID = newSecSym(ctx, sh.Name, id, 0)
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
				if sec, local := o.localDataSec(r.Sym); local && ctx.Secs[sec].Name == moduleShared {
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
