package merge

// The call graph: edges collected from the inputs' .nv.callgraph sections
// and relocations (buildCallgraph), the .nv.prototype section
// (buildPrototype) and the encoded .nv.callgraph (encodeCallgraph).
// Invariant: the output groups the edges by caller, callers in symbol
// order, each caller's callees in reverse input order (nvlink prepends).

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/warplink/warplink/elf"
)

// cgEdge is a call graph record between output symbol IDs; caller 0 with a
// negative callee is a list marker.
type cgEdge struct {
	caller, callee int32
}

// buildCallgraph merges the inputs' .nv.callgraph lists. Each input holds
// a marker (0, -1) followed by call edges (caller, callee), then markers -2
// (address-taken functions) and -3 (indirect call sites), each followed by
// (function, prototype string) pairs, and, in objects of CUDA 13.0, -4
// (indirect call site, possible callee) pairs of symbols. The output lists the call edges
// grouped by caller, callers in symbol order, each caller's callees in
// reverse input order (nvlink prepends); an edge an earlier file already
// had is dropped, but a file's own repeated edges are kept
// (testdata/crafted/callgraph-duplicate-edge); the -2 and -3 lists keep file
// order, their strings moved to the output .strtab.
//
// The records come mapped from gatherObjects (g), folded here in file
// order.
func buildCallgraph(ctx *Context, g *objGather) {
	cg := &callgraph{lists: map[int32][]cgEdge{}}
	// (Sets of symbol IDs, dense: maps of every edge and function cost
	// 3 ms at 10,000 objects, most of it their growth.)
	taken := make([]bool, len(ctx.Syms))
	listed := make([]bool, len(ctx.Syms)) // in the -2 list from an input's
	// firstFile: by caller, 1 + the first file whose call edges name it
	// (0: none so far). An edge an earlier file had needs its caller in
	// two files; dropEarlierEdges drops those, after the files, for the
	// callers that are.
	firstFile := make([]int32, len(ctx.Syms))
	shared := false                         // some caller's edges come from two files or more
	fileStart := make([]int, 0, len(g.per)) // by file: where its edges start in ctx.cgEdges
	// The edges are compacted in place: file fi's land at or before
	// g.edgeLo[fi], where they were.
	ctx.cgEdges = g.edges[:0]
	var others []cgRecord
	for fi := range g.per {
		first := len(ctx.cgEdges) // (this file's edges)
		fileStart = append(fileStart, first)
		lo := g.edgeLo[fi]
		for _, e := range g.edges[lo : lo+g.edgeN[fi]] {
			switch f := firstFile[e.caller]; f {
			case 0:
				firstFile[e.caller] = int32(fi) + 1
			case int32(fi) + 1:
			case -1: // (noted shared already)
			default:
				firstFile[e.caller] = -1
				shared = true
			}
			ctx.cgEdges = append(ctx.cgEdges, e)
		}
		run := &g.runs[fi/gatherRun]
		if fi%gatherRun == 0 {
			others = run.others
		}
		sites := len(cg.lists[-3])
		for ; len(others) > 0 && others[0].file == int32(fi); others = others[1:] {
			r := &others[0]
			if !elf.CallgraphProtoBlock(r.list) {
				cg.lists[r.list] = append(cg.lists[r.list], cgEdge{r.caller, r.callee})
				continue
			}
			if r.list == -2 && listed[r.caller] {
				continue // (a weak function two objects list: once, the first)
			}
			cg.lists[r.list] = append(cg.lists[r.list], cgEdge{r.caller, int32(ctx.protoStringHashed(r.str, r.hash))})
			if r.list == -2 {
				taken[r.caller] = true
				listed[r.caller] = true
			}
		}
		// A file's indirect call sites in the reverse of its order
		// (nvlink prepends them), which orders the edges made for them
		// too (-G virtual calls: crafted callgraph-sites-order).
		slices.Reverse(cg.lists[-3][sites:])
		if len(run.launched) > 0 && run.launched[0] == int32(fi) {
			run.launched = run.launched[1:]
			addLaunchedKernels(ctx, ctx.Objs[fi], cg, taken)
		}
	}
	if shared {
		ctx.cgEdges = dropEarlierEdges(ctx.cgEdges, fileStart, firstFile)
	}
	// (nvlink writes the call graph even when no input had one.)
	ctx.directEdges = len(ctx.cgEdges)
	for _, f := range cg.lists[-2] {
		ctx.addressTaken = append(ctx.addressTaken, f.caller)
	}
	// An indirect call site may reach every address-taken function of the
	// same prototype: nvlink adds those call edges, one per site and
	// function, repeats kept (two calls through a table of two functions:
	// four edges; crafted callgraph-indirect-repeats), and 11.8 writes
	// them (Release.IndirectEdges).
	// The functions in the order nvlink's block -2 has them (creation
	// order, as written below), not file order: two functions a library
	// object defines, listed the other way round by the object taking
	// their addresses (cuda-samples simpleSeparateCompilation; crafted
	// callgraph-indirect-defined-earlier).
	cands := slices.Clone(cg.lists[-2])
	slices.SortStableFunc(cands, func(a, b cgEdge) int { return cmp.Compare(a.caller, b.caller) })
	for _, site := range cg.lists[-3] {
		for _, f := range cands {
			if f.callee == site.callee {
				ctx.cgEdges = append(ctx.cgEdges, cgEdge{site.caller, f.caller})
			}
		}
	}
	sec := ctx.newSection(".nv.callgraph", elf.SHTCudaCallgraph, 0, 4, 8)
	sec.LinkSymtab = true
	ctx.setGen(sec, &genSec{callgraph: cg})
	sec.SymID = newSecSym(ctx, sec.Name, sec.ID, 0)
	buildPrototype(ctx, g)
}

// calleesByCaller groups call edges by caller (nsyms symbols), callees in
// edge order, and lists the callers in order of their first edge; the
// lists' memory comes from alloc (nil: make).
func calleesByCaller(edges []cgEdge, nsyms int, alloc elf.Alloc) (lists[int32], []int32) {
	l := newListsIn[int32](nsyms, alloc)
	var callers []int32
	for _, e := range edges {
		if !l.counted(e.caller) {
			callers = append(callers, e.caller)
		}
		l.count(e.caller)
	}
	l.place()
	for _, e := range edges {
		l.put(e.caller, e.callee)
	}
	l.done()
	return l, callers
}

// addLaunchedKernels lists in the address-taken block (-2, with no
// prototype) every entry whose address another function's code takes: a
// kernel launched from the device (corpus program cdp). dce found them
// (objRare.launched), in the order of o's relocations.
func addLaunchedKernels(ctx *Context, o *Obj, cg *callgraph, taken []bool) {
	for _, m := range o.launchedKernels() {
		if !taken[m] && !ctx.Syms[m].dead {
			taken[m] = true
			cg.lists[-2] = append(cg.lists[-2], cgEdge{m, 0})
		}
	}
}

// dropEarlierEdges drops from edges (the call edges of every file, in
// file order; file i's from fileStart[i]) each edge an earlier file had,
// keeping a file's own repeats. Only callers that firstFile marks -1 (in
// two files or more) can have one.
func dropEarlierEdges(edges []cgEdge, fileStart []int, firstFile []int32) []cgEdge {
	from := map[cgEdge]int{} // an edge of a shared caller: the first file with it
	out := edges[:0]
	fi := 0
	for i, e := range edges {
		for fi+1 < len(fileStart) && fileStart[fi+1] <= i {
			fi++
		}
		if firstFile[e.caller] == -1 {
			if f, ok := from[e]; !ok {
				from[e] = fi
			} else if f < fi {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// protoStringHashed is the .strtab offset of a prototype string, whose
// hash in Context.Str is h: the empty one is the copy nvlink adds for
// prototypes (see mergeGlobal) when there is one.
func (ctx *Context) protoStringHashed(s string, h uint32) uint32 {
	if s == "" && ctx.emptyProto != 0 {
		return ctx.emptyProto
	}
	return ctx.Str.addWithHash(s, h)
}

// callgraph is the merged .nv.callgraph: lists other than -1 by marker.
type callgraph struct {
	lists map[int32][]cgEdge
}

func (o *Obj) strtab() []byte {
	if o.F.StrtabIndex <= 0 {
		return nil
	}
	return o.F.Sections[o.F.StrtabIndex].Data()
}

// buildPrototype merges .nv.prototype: (function, prototype string) pairs
// for the functions called directly, one per function, first wins (the
// records from gatherObjects, g, in file order).
func buildPrototype(ctx *Context, g *objGather) {
	// (Sets of symbol IDs, dense: maps cost 1.5 ms at 10,000 objects.)
	callee := make([]bool, len(ctx.Syms))
	for _, e := range ctx.cgEdges[:ctx.directEdges] {
		callee[e.callee] = true
	}
	// Under -g and --preserve-relocs, which keep every function, nvlink
	// keeps the records of the functions no one calls too, but for the
	// address-taken ones (the output call graph's block -2,
	// Context.addressTaken): corpus archive, cdp and virtual linked with
	// either.
	var taken []bool
	if ctx.keep.UncalledPrototypes {
		taken = make([]bool, len(ctx.Syms))
		for _, f := range ctx.addressTaken {
			taken[f] = true
		}
	}
	var recs []cgEdge
	seen := make([]bool, len(ctx.Syms))
	for r := range g.runs {
		for i := range g.runs[r].protos {
			p := &g.runs[r].protos[i]
			// (A function called directly keeps its record; under -g
			// or --preserve-relocs any other too, but for the
			// address-taken ones: see taken.)
			if seen[p.sym] || !callee[p.sym] && (taken == nil || taken[p.sym]) {
				continue
			}
			seen[p.sym] = true
			recs = append(recs, cgEdge{p.sym, int32(ctx.Str.Add(p.str()))})
		}
	}
	ctx.Str.Add(".nv.prototype")
	p := ctx.newSection(".nv.prototype", elf.SHTCudaPrototype, 0, 4, 8)
	p.LinkSymtab = true
	ctx.setGen(p, &genSec{prototype: recs})
	if len(recs) == 0 {
		p.Dead = true
		return
	}
	p.SymID = newSecSym(ctx, p.Name, p.ID, 0)
}

// encodeCallgraph writes .nv.callgraph and .nv.prototype with final
// indices: the sections secs (those with either, orderSections).
func encodeCallgraph(ctx *Context, secs []int32) {
	le := binary.LittleEndian
	for _, id := range secs {
		switch s := ctx.Secs[id]; {
		case s.gen.callgraph != nil:
			// Callers in the order their symbols were created (nvlink's
			// function numbers: file order, .symtab order inside a file),
			// each one's callees latest first (nvlink prepends). (Symbol
			// index order, which the corpus also fits, puts a kernel
			// after the weak destructors of a later object:
			// testdata/crafted/virtual-cross-object.)
			calls, callers := ctx.calls, slices.Clone(ctx.callers)
			if !ctx.Rel.IndirectEdges {
				calls, callers = calleesByCaller(ctx.cgEdges[:ctx.directEdges], len(ctx.Syms), nil)
			}
			slices.Sort(callers)
			out := le.AppendUint32(nil, 0)
			out = le.AppendUint32(out, ^uint32(0))
			for _, c := range callers {
				calls := calls.of(c)
				for k := len(calls) - 1; k >= 0; k-- {
					out = le.AppendUint32(out, uint32(ctx.symIndexOf(c)))
					out = le.AppendUint32(out, uint32(ctx.symIndexOf(calls[k])))
				}
			}
			for _, m := range []int32{-2, -3, -4} {
				l, ok := s.gen.callgraph.lists[m]
				if !ok && m == -4 && !ctx.Rel.EmptyCallList4 {
					continue
				}
				if m != -4 {
					// In creation order as well, not file order: a
					// function another object defined first comes first
					// (testdata/crafted/virtual-cross-object-g).
					l = slices.Clone(l)
					slices.SortStableFunc(l, func(a, b cgEdge) int { return cmp.Compare(a.caller, b.caller) })
				} else if ctx.Rel.List4AsCalls {
					// As list -1: callers in creation order, each one's
					// possible callees latest first.
					l = slices.Clone(l)
					slices.Reverse(l)
					slices.SortStableFunc(l, func(a, b cgEdge) int { return cmp.Compare(a.caller, b.caller) })
				}
				out = le.AppendUint32(out, 0)
				out = le.AppendUint32(out, uint32(m))
				for _, e := range l {
					out = le.AppendUint32(out, uint32(ctx.symIndexOf(e.caller)))
					if elf.CallgraphProtoBlock(m) {
						out = le.AppendUint32(out, uint32(e.callee)) // a .strtab offset
					} else {
						out = le.AppendUint32(out, uint32(ctx.symIndexOf(e.callee)))
					}
				}
			}
			ctx.setData(s, out)
			s.Size = uint64(len(out))
		case s.gen.prototype != nil:
			// In the order of the functions' symbols, as the call
			// graph's callers (sm_80's cooperative-groups helpers, which
			// come before the function calling them:
			// testdata/crafted/prototype-order).
			recs := slices.Clone(s.gen.prototype)
			slices.SortStableFunc(recs, func(a, b cgEdge) int { return cmp.Compare(a.caller, b.caller) })
			var out []byte
			for _, e := range recs {
				out = le.AppendUint32(out, uint32(ctx.symIndexOf(e.caller)))
				out = le.AppendUint32(out, uint32(e.callee))
			}
			ctx.setData(s, out)
			s.Size = uint64(len(out))
		}
	}
}
