package merge

// EXTERNS lists: which entries survive the link (externKept) and each
// entry's list completed with what the functions it reaches bring
// (closeExterns), as nvlink 11.8 builds them.
// Invariant: an entry's own surviving entries come first, in order, then
// its callees' in output .nv.info order, without duplicates.

import (
	"slices"

	"github.com/warplink/warplink/elf"
)

// externKept reports the EXTERNS entries that survive the link: entry
// functions (launched from device code) and references still undefined.
func externKept(s *OutSym) bool {
	return s.Other&stoCudaEntry != 0 || (s.Sec < 0 && s.Shndx == 0)
}

// closeExterns completes each entry's EXTERNS list: its own surviving
// entries, in order, then what the functions it can reach bring; other
// functions keep their own surviving entries. Functions left with an
// empty list lose the record; an entry that had none gets one, last of its
// records (made, by code section: buildNvInfo appends them last), when
// what it reaches brings some (a kernel calling a device function that
// calls printf: testdata/crafted/externs-from-callees).
//
// What the callees bring is taken as nvlink 11.8 takes it: the lists of
// every function the entry can reach, whatever the depth, in the order of
// those functions' .nv.info sections in the output (order: for the device
// runtime, the order its members were loaded in), each list in its own
// order, skipping symbols already there (crafted cdp-device-api,
// cdp-device-memset and cdp-malloc-free; with cudaMalloc and cudaFree,
// cudaFree's section comes first, so free precedes cnpSetLastError
// whatever the calls' order). An indirect call site reaches only the
// address-taken functions of its prototype, through the call edges nvlink
// adds for it: a kernel calling a virtual function does not get the free
// of the virtual destructors beside it (crafted
// externs-virtual-destructor; externs-indirect's kernel gets another
// function's vprintf as the root kernel, below).
//
// The root kernel (Context.rootKernel: the only kernel the link uses) is
// treated otherwise: when the lists of the link's live functions, taken in
// the order their .nv.info.<f> came in the inputs (inOrder), name more
// than its own, its record goes and a new one, last of its records, lists
// them all, reversed (nvlink prepends): what functions it does not reach
// name too (testdata/crafted/externs-root, kernels-used-launched).
func closeExterns(ctx *Context, perFunc *funcInfos, order, inOrder []int32) (made map[int32]infoRec) {
	own, found := ownExterns(perFunc, len(ctx.Syms), ctx.lateScratch)
	if !found {
		return nil // (no record to close, none to make)
	}
	ec := &externClosure{
		ctx: ctx, calls: ctx.calls, own: own, inOrder: inOrder,
		seen: elf.SliceOf[uint32](len(ctx.Syms), ctx.lateScratch), visited: elf.SliceOf[uint32](len(ctx.Syms), ctx.lateScratch),
	}
	ec.rank = externRanks(ctx, perFunc, ec, order)
	for k, t := range perFunc.sec {
		if !perFunc.alive[k] {
			continue
		}
		var recs []infoRec // (none to close: its records are not read)
		if perFunc.kinds[k]&kindExterns != 0 {
			recs = perFunc.externsOf(k)
		}
		if rec, ok := ec.closeFunction(perFunc.sym[k], perFunc.entry[k], recs); ok {
			if made == nil {
				made = map[int32]infoRec{}
			}
			made[t] = rec
		}
	}
	return made
}

// ownExterns is each function symbol's surviving entries of its own
// EXTERNS records, in order (a function with records in two sections has
// both sections' entries; lists by symbol, nsyms of them, in alloc's
// memory), and whether any function has such a record, even an empty
// one.
func ownExterns(perFunc *funcInfos, nsyms int, alloc elf.Alloc) (own lists[int32], found bool) {
	if perFunc.any&kindExterns == 0 {
		return own, false // (the usual link: no table, no walk)
	}
	own = newListsIn[int32](nsyms, alloc)
	perFunc.eachExterns(func(f int32, recs []infoRec) {
		if f < 0 {
			return
		}
		for k := range recs {
			if recs[k].isExterns() {
				found = true
				own.countN(f, recs[k].externCount())
			}
		}
	})
	if !found {
		return own, false // (no list to put: closeExterns stops here)
	}
	own.place()
	perFunc.eachExterns(func(f int32, recs []infoRec) {
		if f < 0 {
			return
		}
		for k := range recs {
			if r := &recs[k]; r.isExterns() {
				for i := range r.externCount() {
					own.put(f, r.externID(i))
				}
			}
		}
	})
	own.done()
	return own, found
}

// externRanks is where each function with a list of its own has its
// .nv.info section in the output (order): the order its list is taken in,
// by symbol, from 1 (0 for one without: only those with lists are
// ranked).
func externRanks(ctx *Context, perFunc *funcInfos, ec *externClosure, order []int32) []int32 {
	rank := elf.SliceOf[int32](len(ctx.Syms), ctx.lateScratch)
	for k, t := range order {
		if f, _ := perFunc.function(ctx, t); f >= 0 && ec.owns(f) && rank[f] == 0 {
			rank[f] = int32(k + 1)
		}
	}
	return rank
}

// externClosure is closeExterns' state: the lists, their ranks, and sets
// of symbol IDs for one record at a time (an ID is in seen or visited
// when its stamp is the record's generation, gen).
type externClosure struct {
	ctx           *Context
	calls         lists[int32]
	own           lists[int32] // by function symbol: its own surviving entries (ownExterns)
	rank          []int32
	inOrder       []int32
	seen, visited []uint32
	gen           uint32
	list          []int32 // a list being closed (reused)
	// queue, reached and more are gather's (reused).
	queue, reached, more []int32
}

// owns reports whether function f has a non-empty list of its own.
func (ec *externClosure) owns(f int32) bool {
	return len(ec.own.of(f)) != 0
}

// externsRec is a new EXTERNS record listing list.
func externsRec(list []int32) infoRec {
	return infoRec{Format: elf.EIFmtSVal, Code: elf.EIAttrExterns, Payload: idPayload(list), sym: -1}
}

// closeFunction closes the EXTERNS records recs of a code section, whose
// function is f (-1: none; entry: it gathers, funcInfos.noteSections), in
// place (their lists, dropped when empty), and returns the record to make
// for it, if any: the root kernel's new list, or an entry's first.
func (ec *externClosure) closeFunction(f int32, entry bool, recs []infoRec) (infoRec, bool) {
	ctx := ec.ctx
	if f >= 0 && f == ctx.rootKernel {
		if all := ec.rootList(f); all != nil {
			for k := range recs {
				if recs[k].isExterns() {
					recs[k].sym = symDropped
				}
			}
			return externsRec(all), true
		}
	}
	had := false // an EXTERNS record keeps entries of its own
	for k := range recs {
		if !recs[k].isExterns() {
			continue
		}
		ec.gen++
		list := ec.list[:0]
		if f >= 0 {
			for _, m := range ec.own.of(f) {
				if ec.seen[m] != ec.gen {
					ec.seen[m] = ec.gen
					list = append(list, m)
				}
			}
		}
		had = true
		if entry {
			// Only entries gather their callees'.
			list = append(list, ec.gather(f)...)
		}
		recs[k].Payload = idPayloadOver(recs[k].Payload, list)
		ec.list = list
		if len(list) == 0 {
			recs[k].sym = symDropped
		}
	}
	if entry && !had {
		ec.gen++
		if more := ec.gather(f); len(more) > 0 {
			return externsRec(more), true
		}
	}
	return infoRec{}, false
}

// gather is what entry f's callees bring, beyond the symbols in seen:
// the lists of the functions it reaches, in section order (rank).
// The list returned is gather's own, valid until its next call.
func (ec *externClosure) gather(f int32) []int32 {
	gen := ec.gen
	reached := ec.reached[:0] // functions with lists of their own
	ec.visited[f] = gen
	queue := append(ec.queue[:0], ec.calls.of(f)...)
	for next := 0; next < len(queue); next++ {
		g := queue[next]
		if ec.visited[g] == gen {
			continue
		}
		ec.visited[g] = gen
		if ec.owns(g) {
			reached = append(reached, g)
		}
		queue = append(queue, ec.calls.of(g)...)
	}
	ec.queue, ec.reached = queue, reached
	slices.SortFunc(reached, func(a, b int32) int { return int(ec.rank[a]) - int(ec.rank[b]) })
	more := ec.more[:0]
	for _, g := range reached {
		for _, m := range ec.own.of(g) {
			if ec.seen[m] != gen {
				ec.seen[m] = gen
				more = append(more, m)
			}
		}
	}
	ec.more = more
	return more
}

// rootList is the root kernel's new list when what the link's live
// functions name, taken in input order, goes beyond its own list
// (reversed: nvlink prepends); nil when it does not (its record then
// stays as any other's: corpus printf).
func (ec *externClosure) rootList(f int32) []int32 {
	ctx := ec.ctx
	ec.gen++
	for _, m := range ec.own.of(f) {
		ec.seen[m] = ec.gen
	}
	ec.gen++
	gen := ec.gen
	var all []int32
	grew := false
	for _, t := range ec.inOrder {
		g := ctx.Secs[t].InfoSym
		if ctx.Secs[t].Dead || g < 0 || ec.visited[g] == gen {
			continue
		}
		ec.visited[g] = gen
		for _, m := range ec.own.of(g) {
			if ec.seen[m] < gen {
				grew = grew || ec.seen[m] != gen-1
				ec.seen[m] = gen
				all = append(all, m)
			}
		}
	}
	if !grew {
		return nil
	}
	slices.Reverse(all)
	return all
}
