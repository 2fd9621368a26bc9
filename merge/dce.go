package merge

// dce: remove the functions no entry can reach, as nvlink 11.8 does even
// without host information (testdata/crafted, corpus "archive").
//
// Inputs: merge results. Outputs: OutSec.Dead and OutSym.dead for the
// removed functions and their per-function sections; a dceResult (the
// callee lists, the root kernel and roots, what live code names, the
// launched kernels) that the pass stores in the Context for later passes.
// Invariants: roots are every entry function (those --kernels-used names
// when it or --variables-used is given) and every function with the
// address-taken st_other bit, and under -g every function (nvlink 11.8
// removes none then: crafted debug-flag-keeps-functions). Kernels other
// functions name by a relocation (a device-side launch's descriptor) or
// list as address-taken are kept, and are roots unless the link uses
// exactly one kernel, nvlink's root kernel (Context.rootKernel; crafted
// kernels-used-*). A function is live when a live function's
// call edge (block -1 of .nv.callgraph) names it, as in nvlink 11.8: a
// relocation in live code alone does not keep its target
// (testdata/crafted/callgraph-liveness, callgraph-edge-not-relocation; in
// ptxas's output every call has both). An indirect call site reaches the
// address-taken functions of its prototype. Functions listed in block -2
// (address-taken) or named by a data section's relocation (virtual
// tables) are kept, but what only they call is not
// (testdata/crafted/virtual-cross-object-g). The edges of a replaced weak
// function count as the winner's.
// An undefined function stays referenced (and is reported) when a
// relocation of live code or a live function's call-graph edge names it;
// undefined data is reported whoever names it (reportUndefined).
// libcudadevrt's unused functions go too, --keep-system-libraries or not
// (that option only keeps its objects in the link: resolve's
// dropUnusedSystemObjects; docs/usage.md). The outcome depends
// only on the inputs: each object's references are found in parallel and
// gathered in file order.

import (
	"slices"
	"strings"
	"sync/atomic"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/prefetch"
)

func dce(ctx *Context) error {
	r := eliminateDeadCode(ctx)
	// What later passes read of it (Context.callees for layout and
	// bound references, rootKernel and dceRoot for EXTERNS and .nv.info,
	// liveRefs for reportUndefined, objRare.launched for finalize's
	// addLaunchedKernels): set here, in one place.
	ctx.callees = r.callees
	ctx.rootKernel = r.rootKernel
	ctx.dceRoot = r.dceRoot
	ctx.liveRefs = r.liveRefs
	for i, o := range ctx.Objs {
		if l := r.launched[i]; l != nil || o.rare != nil {
			o.more().launched = l
		}
	}
	return nil
}

// dceResult is what dead code elimination hands to later passes.
type dceResult struct {
	callees    lists[int32] // function symbol ID -> its callees in the inputs' call graphs
	rootKernel int32        // the only kernel the link uses, or -1
	dceRoot    []bool       // by symbol ID: the roots, under --kernels-used without -g; else nil
	liveRefs   symSet       // named by live code (referencedLive)
	launched   [][]int32    // by object: kernels its code names (objCalls.launched)
}

// eliminateDeadCode marks the removed functions and their sections dead,
// in steps: the symbols' kinds and the entry roots (one walk of the
// symbols), the objects' call graphs and references, the callee lists,
// the remaining roots, liveness along call edges, the kept address-taken
// functions, then what removed code alone named.
func eliminateDeadCode(ctx *Context) dceResult {
	lv := liveness{live: make([]bool, len(ctx.Syms))}
	fk := markEntryRoots(ctx, &lv)
	refs := newSymSet(len(ctx.Syms))
	per := findAllCalls(ctx, fk.kind, refs)
	callees := calleeLists(ctx, append(per, indirectEdges(per)))
	rootKernel, dceRoot := markRoots(ctx, per, fk, &lv)
	lv.propagate(callees)
	keepAddressTaken(per, lv.live)
	deadText, removed := removeDeadFunctions(ctx, fk.defined, lv.live)
	liveRefs := findLiveRefs(ctx, per, refs, removed)
	dropUnreferencedUndefined(ctx, fk.kind, liveRefs)
	dropDeadFunctionSections(ctx, deadText)
	r := dceResult{callees: callees, rootKernel: rootKernel, dceRoot: dceRoot, liveRefs: liveRefs, launched: make([][]int32, len(per))}
	for i, c := range per {
		r.launched[i] = c.launched
	}
	return r
}

// findAllCalls finds what each object's call graph and data sections
// name, in parallel, stored by object (so gathered in file order), and
// adds to refs what the relocations of every output section name
// (findLiveRefs).
// NOTE: findCalls runs concurrently; it only reads the context.
func findAllCalls(ctx *Context, kind []symKind, refs symSet) []objCalls {
	per := make([]objCalls, len(ctx.Objs))
	parallelFor(len(ctx.Objs), ctx.Opts.Threads, func(i int) error {
		prefetchObject(ctx.Objs, i)
		per[i] = findCalls(ctx, ctx.Objs[i], kind, refs)
		return nil
	})
	return per
}

// indirectEdges: an indirect call site may reach every address-taken
// function of its prototype (the edges finalize adds to the output's call
// graph), in file order of the sites, then of the functions.
func indirectEdges(per []objCalls) objCalls {
	var indirect objCalls
	if !slices.ContainsFunc(per, func(c objCalls) bool { return len(c.sites) > 0 }) {
		return indirect
	}
	byProto := map[string][]int32{}
	for _, c := range per {
		for _, t := range c.taken {
			byProto[t.proto] = append(byProto[t.proto], t.fn)
		}
	}
	for _, c := range per {
		for _, s := range c.sites {
			for _, f := range byProto[s.proto] {
				indirect.edges = append(indirect.edges, cgEdge{s.fn, f})
			}
		}
	}
	return indirect
}

// calleeLists groups every edge of all by caller, in edge order.
func calleeLists(ctx *Context, all []objCalls) lists[int32] {
	callees := newLists[int32](len(ctx.Syms))
	for _, c := range all {
		for _, e := range c.edges {
			callees.count(e.caller)
		}
	}
	callees.place()
	for _, c := range all {
		for _, e := range c.edges {
			callees.put(e.caller, e.callee)
		}
	}
	callees.done()
	return callees
}

// liveness is the mark state: live by symbol ID, and the marked functions
// whose callees are still to be marked.
type liveness struct {
	live []bool
	work []int32
}

func (lv *liveness) mark(f int32) {
	if !lv.live[f] {
		lv.live[f] = true
		lv.work = append(lv.work, f)
	}
}

// propagate marks every function a live function's call edge reaches.
func (lv *liveness) propagate(callees lists[int32]) {
	for len(lv.work) > 0 {
		f := lv.work[len(lv.work)-1]
		lv.work = lv.work[:len(lv.work)-1]
		for _, g := range callees.of(f) {
			lv.mark(g)
		}
	}
}

// symKind is what dce's walks over many symbols read of one symbol, a
// byte each by symbol ID (funcKinds), so that they need not read its
// record: skFunc, a function (STT_FUNC); skEntry, one with the entry
// st_other bit; skUndef, an undefined one (no output section, not
// SHN_COMMON nor any other special index). Zero for any other symbol.
type symKind uint8

const (
	skFunc symKind = 1 << iota
	skEntry
	skUndef
)

// funcKinds is what markEntryRoots' walk over every symbol record notes:
// each symbol's kind, and the defined functions (not section symbols) in
// ID order, which removeDeadFunctions and -g's roots walk instead of
// every record.
type funcKinds struct {
	kind    []symKind
	defined []int32
	// matched counts the kernels used; last is the last of them.
	matched int
	last    int32
}

// markEntryRoots marks the roots its walk over every symbol record
// finds, the kernels used and the functions with the address-taken
// st_other bit (the rest: markRoots), and notes the symbols' kinds
// (funcKinds) for the walks after it.
func markEntryRoots(ctx *Context, lv *liveness) funcKinds {
	fk := funcKinds{kind: make([]symKind, len(ctx.Syms))}
	for _, s := range ctx.Syms {
		if s.Type() != elf.STTFunc {
			continue
		}
		k := skFunc
		if s.Other&stoCudaEntry != 0 {
			k |= skEntry
		}
		if s.Sec < 0 && s.Shndx == 0 {
			k |= skUndef
		}
		fk.kind[s.ID] = k
		if s.Sec < 0 || s.IsSecSym {
			continue
		}
		fk.defined = append(fk.defined, s.ID)
		if s.Other&stoCudaEntry != 0 && ctx.kernelUsed(s.Name) {
			fk.matched, fk.last = fk.matched+1, s.ID
			lv.mark(s.ID)
		} else if s.Other&stoCudaObscure != 0 {
			lv.mark(s.ID)
		}
	}
	return fk
}

// markRoots marks the roots: the kernels used, the functions with the
// address-taken st_other bit (those two markEntryRoots marked), and
// address-taken or launched kernels unless --kernels-used names exactly
// one kernel (then they are only kept, keepAddressTaken:
// testdata/crafted/kernels-used-launched); under -g or --preserve-relocs
// every function. It returns that one kernel (or
// -1) and, under --kernels-used without -g, the roots before the last
// rule (EIATTR_MIN_STACK_SIZE goes to them only: finalize).
func markRoots(ctx *Context, per []objCalls, fk funcKinds, lv *liveness) (rootKernel int32, dceRoot []bool) {
	rootKernel = -1
	filtered := ctx.usedFilter()
	matched := fk.matched
	if matched == 1 {
		rootKernel = fk.last
	}
	if filtered && matched != 1 {
		for _, c := range per {
			for _, t := range c.taken {
				if fk.kind[t.fn]&skEntry != 0 {
					lv.mark(t.fn)
				}
			}
			for _, f := range c.launched {
				lv.mark(f)
			}
		}
	}
	if filtered && !ctx.keep.EveryKernelUsed {
		dceRoot = slices.Clone(lv.live)
	}
	if ctx.keep.EveryFunction {
		for _, id := range fk.defined {
			lv.mark(id)
		}
	}
	return rootKernel, dceRoot
}

// keepAddressTaken: address-taken functions stay, but what only they call
// does not (the destructor of a base class that only derived destructors
// in virtual tables call, under -G: testdata/crafted/virtual-cross-object-g);
// an entry's indirect call sites reach those of their prototype through
// the indirect edges. Functions data names and launched kernels stay too.
func keepAddressTaken(per []objCalls, live []bool) {
	for _, c := range per {
		for _, t := range c.taken {
			live[t.fn] = true
		}
		for _, f := range c.dataRefs {
			live[f] = true
		}
		for _, f := range c.launched {
			live[f] = true
		}
	}
}

// removeDeadFunctions marks every defined function not live dead, with
// its code section; it returns those sections (by output section ID), and
// whether it removed any function (removed: findLiveRefs then walks the
// relocations again, whether or not that function's section was dead
// already).
func removeDeadFunctions(ctx *Context, defined []int32, live []bool) (deadText []bool, removed bool) {
	deadText = make([]bool, len(ctx.Secs))
	for _, id := range defined {
		if !live[id] {
			s := ctx.Syms[id]
			s.dead, removed = true, true
			deadText[s.Sec] = true
			ctx.Secs[s.Sec].Dead = true
		}
	}
	return deadText, removed
}

// findLiveRefs finds, by symbol ID, what live code names: by its
// relocations, and, for an undefined callee, by a live function's call
// edge in .nv.callgraph (nvlink 11.8 reports an undefined callee that only
// the call graph names: testdata/crafted/callgraph-only-reference; in
// ptxas's output every call edge has its relocation as well). Live code
// is that of the sections not dead once dce removed the dead functions
// (before dropDeadFunctionSections). refs holds what the relocations of
// every section name (findCalls' walk): no section is dead before dce
// (the passes that drop sections run after it), so unless dce removed a
// function (removed) that is the set; else the relocations are walked
// again, those of the dead sections skipped (marked by each object's
// walk, in parallel; TestLiveRefsCrafted checks both ways).
func findLiveRefs(ctx *Context, per []objCalls, refs symSet, removed bool) symSet {
	used := refs
	if removed {
		clear(used)
		parallelFor(len(ctx.Objs), ctx.Opts.Threads, func(i int) error {
			prefetchObject(ctx.Objs, i)
			o := ctx.Objs[i]
			o.eachRelocSection(func(t int, rels []elf.Rela) {
				if m := o.SecMap[t]; m >= 0 && !ctx.Secs[m].Dead {
					used.addRefs(o, rels)
				}
			})
			return nil
		})
	}
	for _, c := range per {
		for _, e := range c.undefCalls {
			if !ctx.Syms[e.caller].dead {
				used.add(e.callee)
			}
		}
	}
	return used
}

// symSet is a set of symbol IDs, a bit each, that goroutines may add to
// at once (findLiveRefs marks what each object names as it walks it: no
// lists to gather, the outcome the same in any order).
type symSet []uint32

func newSymSet(n int) symSet { return make(symSet, (n+31)/32) }

// add puts id in the set (atomically; a bit already set is only read).
func (s symSet) add(id int32) {
	w, b := &s[id>>5], uint32(1)<<(id&31)
	if atomic.LoadUint32(w)&b == 0 {
		atomic.OrUint32(w, b)
	}
}

// addRefs adds what relocations rels of object o name.
func (s symSet) addRefs(o *Obj, rels []elf.Rela) {
	last := int32(-1) // (relocations often name one symbol in a row)
	for _, r := range rels {
		if m := remapSym(o, r.Sym); m >= 0 && m != last {
			s.add(m)
			last = m
		}
	}
}

// has reports whether id is in the set (once no goroutine adds to it).
func (s symSet) has(id int32) bool {
	return int(id>>5) < len(s) && s[id>>5]&(uint32(1)<<(id&31)) != 0
}

// dropUnreferencedUndefined: undefined functions only removed code named
// go with it (the globals' kinds read from kind, not their records).
func dropUnreferencedUndefined(ctx *Context, kind []symKind, used symSet) {
	for _, id := range ctx.Globals {
		if kind[id]&skUndef != 0 && !used.has(id) {
			ctx.Syms[id].dead = true
		}
	}
}

// dropDeadFunctionSections: per-function sections of removed code go with
// it. The same walk (every section record, cold)
// gives each section that an input's sh_info linked to its code
// (per-kernel data: infoIn) the output section it names (InfoSec), as the
// objects' section maps are final since merge (no section names one
// before: the sections that name theirs otherwise are made later). It
// lists the live code sections too, as the walk leaves them
// (Context.liveTexts), and sums the live sections' sizes for
// startPrepare's estimate (Context.dceBytes).
func dropDeadFunctionSections(ctx *Context, deadText []bool) {
	for _, s := range ctx.Secs {
		if s.infoIn > 0 {
			t := ctx.Objs[s.infoObj].SecMap[s.infoIn]
			if t >= 0 && deadText[t] {
				s.Dead = true
			}
			s.InfoSec = t
		}
		if s.Flags&elf.SHFExecInstr != 0 && !s.Dead {
			ctx.liveTexts = append(ctx.liveTexts, s.ID)
		}
		if !s.Nobits && !s.Dead {
			ctx.dceBytes += s.Size
		}
	}
	ctx.dceSecs = len(ctx.Secs)
}

// kernelUsed reports whether the entry named name is a root. nvlink 11.8
// keeps, once --kernels-used or --variables-used is given, only the entries
// whose names contain one of the --kernels-used strings: --variables-used
// alone removes every kernel (testdata/crafted/variables-used). Under -g
// every kernel is used, whatever this says: the callers ask
// keepPolicy.EveryKernelUsed first.
func (o *Options) kernelUsed(name string) bool {
	if len(o.KernelsUsed) == 0 && len(o.VariablesUsed) == 0 {
		return true
	}
	for _, k := range o.KernelsUsed {
		if strings.Contains(name, k) {
			return true
		}
	}
	return false
}

// referencedLive reports whether code that survived dead code elimination
// still names symbol id, by a relocation or (for an undefined function) a
// call-graph edge; references from removed code do not count.
func (ctx *Context) referencedLive(id int32) bool {
	return !ctx.Syms[id].dead && ctx.liveRefs.has(id)
}

// objCalls is what dce finds in one object: its call edges (block -1 of
// .nv.callgraph) between output function symbols, its address-taken
// functions (block -2) and indirect call sites (block -3) with their
// prototype strings, and the functions its allocated data sections'
// relocations name (virtual tables). The edges of a replaced weak function
// are the function's that replaced it.
type objCalls struct {
	edges        []cgEdge
	taken, sites []protoRef
	dataRefs     []int32
	launched     []int32  // kernels named by other functions' relocations
	undefCalls   []cgEdge // those of edges to undefined functions (findLiveRefs)
}

// protoRef is a function or call site of a call graph's prototype lists.
type protoRef struct {
	fn    int32
	proto string
}

// findCalls is what object o's call graph and relocations name (objCalls);
// it adds to refs what the relocations of its sections name
// (findLiveRefs).
func findCalls(ctx *Context, o *Obj, kind []symKind, refs symSet) objCalls {
	var c objCalls
	o.eachCallgraph(func(s *elf.Section) {
		for block, e := range elf.CallgraphRecords(s.Data()) {
			ca := remapSym(o, e.Caller)
			if ca < 0 || kind[ca]&skFunc == 0 {
				continue
			}
			switch {
			case block == -1 && e.Callee > 0:
				if o.replacedCopy(e.Caller) {
					continue // (see replacedCopy)
				}
				if cb := remapSym(o, uint32(e.Callee)); cb >= 0 && kind[cb]&skFunc != 0 {
					c.edges = append(c.edges, cgEdge{ca, cb})
					if kind[cb]&skUndef != 0 {
						c.undefCalls = append(c.undefCalls, cgEdge{ca, cb})
					}
				}
			case block == -2 || block == -3:
				// (The string table read only here: most call graphs
				// have no prototype lists.)
				proto, _ := elf.CString(ctx.protoStrs, uint32(e.Callee))
				if block == -2 {
					c.taken = append(c.taken, protoRef{ca, proto})
				} else {
					c.sites = append(c.sites, protoRef{ca, proto})
				}
			}
		}
	})
	o.eachRelocSection(func(t int, rels []elf.Rela) {
		sec := &o.F.Sections[t]
		if o.SecMap[t] < 0 {
			return
		}
		if sec.Flags&elf.SHFAlloc == 0 {
			refs.addRefs(o, rels)
			return
		}
		code := sec.Flags&elf.SHFExecInstr != 0
		last := int32(-1) // (as symSet.addRefs: relocations often name one symbol in a row)
		for _, r := range rels {
			m := remapSym(o, r.Sym)
			if m >= 0 && m != last {
				refs.add(m)
				last = m
			}
			if m < 0 || kind[m]&skFunc == 0 {
				continue
			}
			switch {
			case !code:
				c.dataRefs = append(c.dataRefs, m)
			case kind[m]&skEntry != 0 && ctx.Syms[m].Sec >= 0 && (ctx.Syms[m].Sec != o.SecMap[t] || strings.Contains(elf.RelocTypeName(r.Type), "FUNC_DESC")):
				// A kernel other code names (a device-side launch's
				// function descriptor), or whose own code takes its
				// descriptor (a kernel launching itself, not the return
				// addresses of its calls:
				// testdata/crafted/cdp-self-launch): the address-taken
				// kernels finalize lists (addLaunchedKernels).
				c.launched = append(c.launched, m)
			}
		}
	})
	return c
}

// prefetchObject asks for what dce's walk of objs[k+1..] reads first, in
// stages, each needing what the one before brought in: an object's record
// four ahead, its file record three ahead, its tables two ahead, its
// symbol map, the first relocations of each relocation section and its
// call graph one ahead (the call graph's section entry must be in by
// then: reading it a step earlier than asked stalled the walk). The walk goes
// through the objects in chunks of consecutive ones (parallelFor), so the
// objects after k are mostly the same goroutine's next ones. Hints only:
// what the walk does is the same without them.
func prefetchObject(objs []*Obj, k int) {
	prefetchObj(objs, k+4)
	prefetchFile(objs, k+3)
	if j := k + 2; j < len(objs) {
		o := objs[j]
		prefetch.Slice(o.relSecs)
		prefetch.Slice(o.SecMap)
		prefetch.Slice(o.F.Sections)
	}
	if j := k + 1; j < len(objs) {
		o := objs[j]
		prefetch.Slice(o.SymMap)
		for _, r := range o.relSecs {
			prefetch.Slice(r.rels[:min(len(r.rels), 4)])
		}
		o.prefetchFirst(256, o.cg)
	}
}
