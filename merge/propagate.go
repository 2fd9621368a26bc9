package merge

// Attributes that depend on the whole call graph: register counts,
// named barrier counts, stack sizes and the ctaid.z / mbarrier entries,
// each flowing from callees to the entries that reach them.
// Invariant: the results do not depend on scheduling (raiseCallers visits
// in symbol ID order), recursion cycles included.

import (
	"encoding/binary"
	"slices"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
)

// propagateRegCount raises each entry's EIATTR_REGCOUNT to the largest
// count among the functions it can reach; a raised count is also written
// to the high byte of its code section's sh_info. Other functions keep
// their own counts. global is .nv.info's records in compact form, in
// output order (the inputs' last first: the first of a function's records
// is the one that counts), the raised counts written in place; own is, by
// output symbol ID, the offset in global of the function's own REGCOUNT
// record (+1; 0: none: globalFacts.regAt).
func propagateRegCount(ctx *Context, global []byte, own []int32) {
	// Each function's count becomes the largest over what it can reach
	// (raiseCallers: the source named in --dump-callgraph's report is
	// independent of scheduling too).
	val := elf.SliceOf[regBest](len(ctx.Syms), ctx.lateScratch)
	var queue []int32
	for f := range own {
		if own[f] == 0 {
			continue
		}
		n, _ := compactU32(global, int(own[f]-1), 4)
		if ctx.Opts.DumpCallgraph {
			if ctx.cg.ownRegs == nil {
				ctx.cg.ownRegs = map[int32]uint32{}
			}
			ctx.cg.ownRegs[int32(f)] = n // the report shows the counts before propagation
		}
		val[f] = regBest{n, int32(f)}
		queue = append(queue, int32(f))
	}
	raiseCallers(ctx, queue, func(f, c int32) bool {
		if val[f].v > val[c].v {
			val[c] = val[f]
			return true
		}
		return false
	})
	for f := range own {
		// Only entries take the counts they reach: a device function
		// keeps its own, even when it calls one with more
		// (testdata/crafted/regcount-entries-only); the values above
		// still flow through it.
		// (A function whose best is still its own count, src, keeps
		// it: its symbol, cold, is not read.)
		if own[f] == 0 || val[f].src == int32(f) || ctx.Syms[f].Other&stoCudaEntry == 0 {
			continue
		}
		b := val[f]
		if n, at := compactU32(global, int(own[f]-1), 4); b.v > n && at >= 0 {
			binary.LittleEndian.PutUint32(global[at:], b.v)
			if sec := ctx.Syms[f].Sec; sec >= 0 && ctx.Rel.TextRegcount {
				ctx.Secs[sec].InfoExtra = uint8(b.v) // (sh_info's high byte)
			}
			if ctx.Opts.DumpCallgraph {
				ctx.cg.raised = append(ctx.cg.raised, regRaise{entry: int32(f), src: b.src, v: b.v})
			}
		}
	}
}

// regBest is the largest register count a function reaches so far.
type regBest struct {
	v   uint32
	src int32 // the function whose own count v is
}

// raiseCallers makes values flow from callees to callers over the call
// graph (ctx.cgEdges) until nothing changes. queue holds the functions
// that have a value, in symbol ID order; raise(f, c) moves f's value into
// its caller c and reports whether c's grew, c then being visited in turn.
// Visiting in that order over each function's callers in edge order keeps
// the result independent of scheduling, recursion cycles included. The
// callers of each function are grouped once per link (ctx.callersOf).
func raiseCallers(ctx *Context, queue []int32, raise func(f, c int32) bool) {
	if ctx.callersOf.start == nil {
		reversed := elf.SliceOf[cgEdge](len(ctx.cgEdges), ctx.lateScratch)
		for i, e := range ctx.cgEdges {
			reversed[i] = cgEdge{caller: e.callee, callee: e.caller}
		}
		ctx.callersOf, _ = calleesByCaller(reversed, len(ctx.Syms), ctx.lateScratch)
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, c := range ctx.callersOf.of(f) {
			if raise(f, c) {
				queue = append(queue, c)
			}
		}
	}
}

// barrierMask is where a code section's sh_flags keep the number of named
// barriers its code uses (bits 20-26).
const (
	barrierShift = 20
	barrierMask  = 0x7F << barrierShift
)

// propagateBarriers gives each entry's code section the largest barrier
// count among the functions it can reach through the call graph, its own
// included, as nvlink 11.8 does: a kernel whose only __syncthreads is in a
// device function of another object needs that barrier too
// (testdata/crafted/barrier-propagation). Other functions keep theirs.
// Counts flow from callees to callers (raiseCallers), as register counts
// do; a link whose functions use no barriers pays one scan.
func propagateBarriers(ctx *Context) {
	val := []uint8(nil) // by symbol ID: the largest count the function reaches
	var queue []int32
	for _, s := range ctx.Syms {
		if s.Type() != elf.STTFunc || s.Sec < 0 || s.IsSecSym || s.dead {
			continue
		}
		if n := uint8((ctx.Secs[s.Sec].Flags & barrierMask) >> barrierShift); n > 0 {
			if val == nil {
				val = make([]uint8, len(ctx.Syms))
			}
			val[s.ID] = n
			queue = append(queue, s.ID)
		}
	}
	if val == nil {
		return
	}
	// Only a function whose count grew can raise its section's: those
	// are visited (raised, in any order: a section's count only grows),
	// not every symbol again.
	var raised []int32
	raiseCallers(ctx, queue, func(f, c int32) bool {
		if val[f] > val[c] {
			val[c] = val[f]
			raised = append(raised, c)
			return true
		}
		return false
	})
	for _, id := range raised {
		s := ctx.Syms[id]
		if s.Other&stoCudaEntry == 0 || s.Type() != elf.STTFunc || s.Sec < 0 || s.IsSecSym || s.dead {
			continue
		}
		if sec := ctx.Secs[s.Sec]; uint64(val[s.ID]) > (sec.Flags&barrierMask)>>barrierShift {
			sec.Flags = sec.Flags&^barrierMask | uint64(val[s.ID])<<barrierShift
		}
	}
}

// stackSizes computes EIATTR_MIN_STACK_SIZE for every entry function: the
// deepest sum of frame sizes along the call graph from the entry, or
// 0xFFFFFFFF (with nvlink's warning) when recursion makes it unknowable.
// global is .nv.info's records in compact form, with room for the
// records, which are appended to it; facts holds where each function's
// frame size is (its first FRAME_SIZE record in output order).
func stackSizes(ctx *Context, global []byte, texts []int32, perFunc *funcInfos, facts *globalFacts) ([]byte, map[int32]bool) {
	calls := ctx.calls
	unknownAt := map[int32]bool{}
	frameAt := facts.frameAt // by output symbol ID
	const unknown = ^uint64(0)
	// Per function: its depth once known, and whether it is being walked
	// (a call back to it is recursion: unknown) or done.
	const (
		walking = 1 + iota
		done
	)
	memo := elf.SliceOf[uint64](len(ctx.Syms), ctx.lateScratch)
	state := elf.SliceOf[uint8](len(ctx.Syms), ctx.lateScratch)
	var depth func(f int32) uint64
	depth = func(f int32) uint64 {
		if f < 0 || int(f) >= len(state) {
			return 0 // (no such function: no frame, no callees)
		}
		switch state[f] {
		case done:
			return memo[f]
		case walking:
			return unknown
		}
		state[f] = walking
		var best uint64
		for _, c := range calls.of(f) {
			d := depth(c)
			if d == unknown {
				best = unknown
				break
			}
			if d > best {
				best = d
			}
		}
		if at := frameAt[f]; best != unknown && at != 0 {
			frame, _ := compactU32(global, int(at-1), 4)
			best += uint64(frame)
		}
		memo[f], state[f] = best, done
		return best
	}
	for _, t := range texts {
		f, entry := perFunc.function(ctx, t)
		if !entry {
			continue
		}
		d := depth(f)
		v := uint32(d)
		if d == unknown {
			v = 0xFFFFFFFF
			unknownAt[f] = true
			if !ctx.Opts.SuppressStackSizeWarning {
				ctx.Diags.Warnf(diag.At(diag.PhaseReports, 0, int(t)), "Stack size for entry function '%s' cannot be statically determined", ctx.Syms[f].Name)
			}
		}
		var p [8]byte
		binary.LittleEndian.PutUint32(p[4:], v)
		global = appendCompact(global, &infoRec{Format: elf.EIFmtSVal, Code: elf.EIAttrMinStackSize, Payload: p[:], sym: f})
	}
	return global, unknownAt
}

// ctaidzEntries returns the entries (by symbol) that get an
// EIATTR_CTAIDZ_USED record: those without one that reach a function with
// one (sm_80 objects carry it for code reading blockIdx.z; nvlink 11.8
// raises it to the entries, at any depth, not to the functions between:
// crafted ctaidz-propagation). The root kernel gets it when any live
// function has it, reached or not (as its EXTERNS: sweep launch-other-tu
// with --kernels-used, libcudadevrt's 3D kernels).
func ctaidzEntries(ctx *Context, perFunc *funcInfos, live []int32) map[int32]bool {
	if perFunc.any&kindCtaidz == 0 {
		return nil // (the usual link: sm_90 code has none; no record is read)
	}
	has := map[int32]bool{}
	for _, t := range live {
		if f := ctx.Secs[t].InfoSym; f >= 0 && perFunc.has(t, kindCtaidz) {
			has[f] = true
		}
	}
	if len(has) == 0 {
		return nil // (the usual link: sm_90 code has none)
	}
	// Every function from which one that has it is reachable.
	reaches := make([]bool, len(ctx.Syms))
	var queue []int32
	for f := range has {
		reaches[f] = true
		queue = append(queue, f)
	}
	slices.Sort(queue)
	raiseCallers(ctx, queue, func(_, c int32) bool {
		grew := !reaches[c]
		reaches[c] = true
		return grew
	})
	out := map[int32]bool{}
	for _, t := range live {
		f := ctx.Secs[t].InfoSym
		if f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 || has[f] {
			continue
		}
		if reaches[f] || f == ctx.rootKernel {
			out[f] = true
		}
	}
	return out
}

// mbarrierEntries is the EIATTR_NUM_MBARRIERS of each entry (by code
// section) that reaches functions with the record: its own count plus
// theirs, each function reached counted once (nvlink 11.8: a kernel
// calling two functions that each initialize a cuda::barrier gets 2,
// calling one twice 1, reaching only records of 0 gets 0; -G code,
// whose barrier functions are not inlined, gets the record only so;
// crafted mbarrier-propagation). Other functions keep theirs.
func mbarrierEntries(ctx *Context, perFunc *funcInfos, live []int32) map[int32]uint16 {
	if perFunc.any&kindMbarriers == 0 {
		return nil // (the usual link; no record is read)
	}
	count := perFunc.mbarriers
	if !slices.ContainsFunc(live, func(t int32) bool { _, ok := count(t); return ok }) {
		return nil // (the usual link)
	}
	out := map[int32]uint16{}
	for _, t := range live {
		f := ctx.Secs[t].InfoSym
		if f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 {
			continue
		}
		sum, _ := count(t)
		reached := false
		for c := range ctx.reachableCode(t) {
			if n, ok := count(c); c != t && ok {
				sum, reached = sum+n, true
			}
		}
		if reached {
			out[t] = sum
		}
	}
	return out
}
