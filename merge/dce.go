package merge

// dce: remove the functions no entry can reach, as nvlink 11.8 does even
// without host information (testdata/crafted, corpus "archive").
//
// Inputs: merge results. Outputs: OutSec.Dead and OutSym.dead for the
// removed functions and their per-function sections; Context.callees
// (each function's callees in the inputs' call graphs, for layout).
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

	"github.com/warplink/warplink/elf"
)

func dce(ctx *Context) error {
	// What each object's call graph and data sections name, found in
	// parallel, then gathered in file order.
	per := make([]objCalls, len(ctx.Objs))
	parallelFor(len(ctx.Objs), ctx.Opts.Threads, func(i int) error {
		per[i] = findCalls(ctx, ctx.Objs[i])
		ctx.Objs[i].launched = per[i].launched // (finalize's addLaunchedKernels)
		return nil
	})
	// An indirect call site may reach every address-taken function of its
	// prototype (the edges finalize adds to the output's call graph).
	var indirect objCalls
	if slices.ContainsFunc(per, func(c objCalls) bool { return len(c.sites) > 0 }) {
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
	}
	all := append(per, indirect)
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
	ctx.callees = callees
	live := make([]bool, len(ctx.Syms))
	var work []int32
	mark := func(f int32) {
		if !live[f] {
			live[f] = true
			work = append(work, f)
		}
	}
	// The roots: the kernels used, and address-taken kernels unless
	// --kernels-used names exactly one kernel (then they are only kept,
	// below: testdata/crafted/kernels-used-launched).
	filtered := ctx.usedFilter()
	matched, last := 0, int32(-1)
	for _, s := range ctx.Syms {
		if s.Type() != elf.STTFunc || s.Sec < 0 || s.IsSecSym {
			continue
		}
		if s.Other&stoCudaEntry != 0 && ctx.kernelUsed(s.Name) {
			matched, last = matched+1, s.ID
			mark(s.ID)
		} else if s.Other&stoCudaObscure != 0 {
			mark(s.ID)
		}
	}
	if matched == 1 {
		ctx.rootKernel = last
	}
	if filtered && matched != 1 {
		for _, c := range per {
			for _, t := range c.taken {
				if ctx.Syms[t.fn].Other&stoCudaEntry != 0 {
					mark(t.fn)
				}
			}
			for _, f := range c.launched {
				mark(f)
			}
		}
	}
	if filtered && !ctx.Opts.Debug {
		// EIATTR_MIN_STACK_SIZE goes to the roots only (finalize).
		ctx.dceRoot = slices.Clone(live)
	}
	if ctx.Opts.PreserveRelocs || ctx.Opts.Debug {
		for _, s := range ctx.Syms {
			if s.Type() == elf.STTFunc && s.Sec >= 0 && !s.IsSecSym {
				mark(s.ID)
			}
		}
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		for _, g := range callees.of(f) {
			mark(g)
		}
	}
	// Address-taken functions stay, but what only they call does not
	// (the destructor of a base class that only derived destructors in
	// virtual tables call, under -G: testdata/crafted/virtual-cross-object-g);
	// an entry's indirect call sites reach those of their prototype
	// through the edges above.
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
	deadText := make([]bool, len(ctx.Secs))
	for _, s := range ctx.Syms {
		if s.Type() == elf.STTFunc && s.Sec >= 0 && !s.IsSecSym && !live[s.ID] {
			s.dead = true
			deadText[s.Sec] = true
			ctx.Secs[s.Sec].Dead = true
		}
	}
	// Undefined references only removed code made go with it. (What each
	// object names is found in parallel, then marked.) A live function's
	// call edge in .nv.callgraph names its callee too: nvlink 11.8
	// reports an undefined callee that only the call graph names
	// (testdata/crafted/callgraph-only-reference; in ptxas's output every
	// call edge has its relocation as well).
	named := make([][]int32, len(ctx.Objs))
	parallelFor(len(ctx.Objs), ctx.Opts.Threads, func(i int) error {
		o := ctx.Objs[i]
		o.eachRelocSection(func(t int, rels []elf.Rela) {
			if o.SecMap[t] < 0 || ctx.Secs[o.SecMap[t]].Dead {
				return
			}
			for _, r := range rels {
				if m := remapSym(o, r.Sym); m >= 0 {
					named[i] = append(named[i], m)
				}
			}
		})
		return nil
	})
	used := make([]bool, len(ctx.Syms))
	for _, ms := range named {
		for _, m := range ms {
			used[m] = true
		}
	}
	for _, c := range per {
		for _, e := range c.edges {
			if callee := ctx.Syms[e.callee]; !ctx.Syms[e.caller].dead && callee.Sec < 0 && callee.Shndx == 0 {
				used[e.callee] = true
			}
		}
	}
	ctx.liveRefs = used
	for _, id := range ctx.Globals {
		if s := ctx.Syms[id]; s.Sec < 0 && s.Shndx == 0 && !used[id] && s.Type() == elf.STTFunc {
			s.dead = true
		}
	}
	// Per-function sections of removed code go with it.
	for _, s := range ctx.Secs {
		if s.infoIn > 0 {
			if t := ctx.Objs[s.infoObj].SecMap[s.infoIn]; t >= 0 && deadText[t] {
				s.Dead = true
			}
		}
	}
	return nil
}

// kernelUsed reports whether the entry named name is a root. nvlink 11.8
// keeps, once --kernels-used or --variables-used is given, only the entries
// whose names contain one of the --kernels-used strings: --variables-used
// alone removes every kernel (testdata/crafted/variables-used). -g keeps
// them all, as used kernels.
func (o *Options) kernelUsed(name string) bool {
	if len(o.KernelsUsed) == 0 && len(o.VariablesUsed) == 0 || o.Debug {
		// (Under -g every kernel is: crafted kernels-used-debug.)
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
	return !ctx.Syms[id].dead && int(id) < len(ctx.liveRefs) && ctx.liveRefs[id]
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
	launched     []int32 // kernels named by other functions' relocations
}

// protoRef is a function or call site of a call graph's prototype lists.
type protoRef struct {
	fn    int32
	proto string
}

func findCalls(ctx *Context, o *Obj) objCalls {
	var c objCalls
	o.eachCallgraph(func(s *elf.Section) {
		strs := o.strtab()
		for block, e := range elf.CallgraphRecords(s.Data) {
			ca := remapSym(o, e.Caller)
			if ca < 0 || ctx.Syms[ca].Type() != elf.STTFunc {
				continue
			}
			switch {
			case block == -1 && e.Callee > 0:
				if o.replacedCopy(e.Caller) {
					continue // (see replacedCopy)
				}
				if cb := remapSym(o, uint32(e.Callee)); cb >= 0 && ctx.Syms[cb].Type() == elf.STTFunc {
					c.edges = append(c.edges, cgEdge{ca, cb})
				}
			case block == -2 || block == -3:
				proto, _ := elf.CString(strs, uint32(e.Callee))
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
		if o.SecMap[t] < 0 || sec.Flags&elf.SHFAlloc == 0 {
			return
		}
		code := sec.Flags&elf.SHFExecInstr != 0
		for _, r := range rels {
			m := remapSym(o, r.Sym)
			if m < 0 || ctx.Syms[m].Type() != elf.STTFunc {
				continue
			}
			switch s := ctx.Syms[m]; {
			case !code:
				c.dataRefs = append(c.dataRefs, m)
			case s.Other&stoCudaEntry != 0 && s.Sec >= 0 && (s.Sec != o.SecMap[t] || strings.Contains(elf.RelocTypeName(r.Type), "FUNC_DESC")):
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
