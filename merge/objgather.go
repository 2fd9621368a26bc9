package merge

// finalize's one visit of every object, in parallel: its .nv.info records
// translated (objectInfo), its .nv.callgraph and .nv.prototype records
// mapped to output symbols (gatherCallgraph, gatherPrototypes).
// buildCallgraph and buildPrototype then fold what it found in file order,
// from these compact lists rather than from each object's sections again.
// Invariant: the pass only reads the output (symbols, sections, string
// tables), and writes to no object's records except, when asked, to drop
// that object's own tables once it is done with them; what it finds is
// stored by object and by run, so the folds see it in file order whatever
// the scheduling.
//
// Why: each object's sections, symbol map and output symbols are cold by
// finalize; read once, on every core, they cost a fraction of the three
// walks over them that translated the records on the other cores while
// one core collected the call edges and then the prototypes (at 10,000
// objects those two serial walks were about 5 ms of finalize).

import (
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/prefetch"
)

// gatherRun is the number of objects one task of the pass visits: their
// call graph and prototype records go into one run's lists (objRun), not
// lists of their own.
const gatherRun = 64

// objGather is what the pass found.
type objGather struct {
	per []objInfo // by file ID
	// edges holds file i's call edges (list -1) from edgeLo[i]
	// (edgeN[i] of them, at most one a record: the room is the
	// records'); buildCallgraph compacts them in place.
	edges         []cgEdge
	edgeLo, edgeN []int32
	runs          []objRun // by run of gatherRun objects
}

// objRun is what the pass found in a run of objects, in file order.
type objRun struct {
	others   []cgRecord // call graph records of lists other than -1 (few)
	protos   []protoRec // prototype records of live functions
	launched []int32    // files whose code launches kernels (objRare.launched)
}

// cgRecord is a call graph record of list other than -1 in file's
// .nv.callgraph: caller and callee output symbols, or in a prototype
// block (-2, -3) the caller and its prototype string, with the string's
// hash in Context.Str.
type cgRecord struct {
	file, list     int32
	caller, callee int32
	hash           uint32
	str            string
}

// protoRec is a .nv.prototype record of a live function: the function
// and its prototype string, n bytes at p (16 bytes a record: a link of
// 100,000 objects has 200,000 of them).
type protoRec struct {
	p   *byte
	sym int32
	n   uint32
}

// str is the record's prototype string.
func (r *protoRec) str() string { return unsafe.String(r.p, r.n) }

// gatherObjects visits every object in parallel (see the file's
// comment); drop: it drops each object's symbol table, relocations and
// resolution IDs once done with it (releaseTables' walk of the objects,
// done here while their records are in the cache).
func gatherObjects(ctx *Context, drop bool) *objGather {
	n := len(ctx.Objs)
	g := &objGather{per: make([]objInfo, n), edgeLo: make([]int32, n+1), edgeN: make([]int32, n), runs: make([]objRun, (n+gatherRun-1)/gatherRun)}
	for i, o := range ctx.Objs {
		g.edgeLo[i+1] = g.edgeLo[i] + o.cgRecords
	}
	g.edges = make([]cgEdge, g.edgeLo[n])
	parallelFor(len(g.runs), ctx.Opts.Threads, func(r int) error {
		run := &g.runs[r]
		var slab byteSlab
		objs := ctx.Objs[r*gatherRun : min(n, (r+1)*gatherRun)]
		run.protos = make([]protoRec, 0, 2*len(objs)) // (a generated object has two)
		for k, o := range objs {
			gatherAhead(ctx, objs, k)
			i := r*gatherRun + k
			p := &g.per[i]
			p.global, p.perFunc = objectInfo(ctx, o, &slab)
			lo, hi := g.edgeLo[i], g.edgeLo[i+1]
			var edges []cgEdge
			edges, run.others = gatherCallgraph(ctx, o, int32(i), g.edges[lo:lo:hi], run.others)
			g.edgeN[i] = int32(len(edges))
			run.protos = gatherPrototypes(ctx, o, run.protos)
			if len(o.launchedKernels()) > 0 {
				run.launched = append(run.launched, int32(i))
			}
			if drop {
				o.F.Symbols, o.relSecs, o.resID = nil, nil, nil
			}
		}
		return nil
	})
	return g
}

// gatherCallgraph maps o's (file's) .nv.callgraph records to output symbols,
// dropping those of dead symbols: its call edges (list -1), but a
// replaced copy's, appended to edges (which has room for every record),
// the other lists' records to others, in order.
func gatherCallgraph(ctx *Context, o *Obj, file int32, edges []cgEdge, others []cgRecord) ([]cgEdge, []cgRecord) {
	o.eachCallgraph(func(s *elf.Section) {
		for list, r := range elf.CallgraphRecords(s.Data()) {
			ca := ctx.liveSym(o, r.Caller)
			if ca < 0 {
				continue
			}
			if !elf.CallgraphProtoBlock(list) {
				// Two symbols: a call edge (-1), or an indirect call
				// site and a possible callee (-4, CUDA 13.0: virtual).
				cb := ctx.liveSym(o, uint32(r.Callee))
				switch {
				case cb < 0, list == -1 && o.replacedCopy(r.Caller):
				case list != -1:
					others = append(others, cgRecord{file: file, list: list, caller: ca, callee: cb})
				default:
					edges = append(edges, cgEdge{ca, cb})
				}
				continue
			}
			if str, ok := elf.CString(ctx.protoStrs, uint32(r.Callee)); ok {
				others = append(others, cgRecord{file: file, list: list, caller: ca, str: str, hash: ctx.Str.hash(str)})
			}
		}
	})
	return edges, others
}

// gatherPrototypes appends o's .nv.prototype records of live functions
// to protos, in order.
func gatherPrototypes(ctx *Context, o *Obj, protos []protoRec) []protoRec {
	o.eachPrototype(func(s *elf.Section) {
		for off := 0; off+8 <= len(s.Data()); off += 8 {
			r := elf.CallgraphEntryAt(s.Data(), off) // (a .nv.prototype record has the same layout)
			sym := ctx.liveSym(o, r.Caller)
			if sym < 0 {
				continue
			}
			if str, ok := elf.CString(ctx.protoStrs, uint32(r.Callee)); ok {
				protos = append(protos, protoRec{unsafe.StringData(str), sym, uint32(len(str))})
			}
		}
	})
	return protos
}

// byteSlab hands out byte buffers of a task's objects from slabs of
// slabBytes: one allocation for several objects' records (a generated
// object's take some 200 bytes), small enough that what a run leaves
// unused is little; a buffer larger than a quarter slab is its own.
// funcs does the same for the objects' lists of funcRecs (one
// allocation, not one an object that grows and, as objectInfo returns
// it, moves to the heap).
type byteSlab struct {
	free  []byte
	funcs []funcRecs
}

const (
	slabBytes = 1 << 10
	slabFuncs = 128
)

// take is an empty buffer of capacity n.
func (b *byteSlab) take(n int) []byte { return slabTake(&b.free, n, slabBytes) }

// takeFuncs is an empty list of capacity n (nil for none).
func (b *byteSlab) takeFuncs(n int) []funcRecs {
	if n == 0 {
		return nil
	}
	return slabTake(&b.funcs, n, slabFuncs)
}

// addWithHash is Add of s, whose hash h the caller computed.
func (t *StrTab) addWithHash(s string, h uint32) uint32 {
	t.mustNotBeQueued()
	if s == "" {
		return 0
	}
	return t.addHashed(s, h)
}

// gatherAhead asks for what the pass reads of the objects after objs[k]
// (as merge's prefetchAhead does), in stages, each needing what the one
// before brought in: an object's record four ahead, its file's record
// three ahead, its section headers, symbols, symbol map and resolution IDs and the
// start of its contents two ahead, and the next one's .nv.info, call
// graph and prototype sections, the slots of the output symbols it maps
// to and its resolutions. Hints
// only: what the pass finds is the same without them.
func gatherAhead(ctx *Context, objs []*Obj, k int) {
	prefetchObj(objs, k+4)
	prefetchFile(objs, k+3)
	if j := k + 2; j < len(objs) {
		o := objs[j]
		prefetch.Slice(o.F.Sections)
		prefetch.Slice(o.SymMap)
		prefetch.Slice(o.resID)
		prefetch.Slice(o.F.Symbols)
		prefetch.Slice(o.F.Raw[:min(len(o.F.Raw), 512)])
	}
	if j := k + 1; j < len(objs) {
		o := objs[j]
		if t := o.infos; t != 0 {
			if lo, hi := t.first(), int(o.infoLast); lo <= hi && hi < len(o.F.Sections) {
				for si := lo; si <= hi; si++ {
					prefetch.Slice(o.F.Sections[si].Data())
				}
			}
		}
		o.prefetchFirst(0, o.cg, o.proto)
		for _, m := range o.SymMap {
			if m >= 0 && int(m) < len(ctx.Syms) {
				prefetch.Line(uintptr(unsafe.Pointer(&ctx.Syms[m])))
			}
		}
		ctx.prefetchResolutions(o) // (the ones lostDefinition reads)
	}
	// (The output symbols themselves: their slots came with the stage
	// before.)
	o := objs[k]
	for _, m := range o.SymMap {
		if m >= 0 && int(m) < len(ctx.Syms) {
			prefetch.Line(uintptr(unsafe.Pointer(ctx.Syms[m])))
		}
	}
}
