package merge

// dce: remove the functions no entry can reach, as nvlink 11.8 does even
// without host information (testdata/crafted, corpus "archive").
//
// Inputs: merge results. Outputs: OutSec.Dead and OutSym.dead for the
// removed functions and their per-function sections.
// Invariants: roots are every entry function (those --kernels-used names
// when it or --variables-used is given), every address-taken function
// and every function a data section's relocation names (virtual tables); a
// function is live when a live function's code has a relocation naming it
// (the code of a replaced weak function counts as the winner's).
// An undefined global stays referenced (and is reported) when a relocation
// of live code or a live function's call-graph edge names it.
// --keep-system-libraries keeps all of libcudadevrt. The outcome depends
// only on the inputs: each object's references are found in parallel and
// gathered in file order.

import (
	"strings"

	"github.com/warplink/warplink/elf"
)

func dce(ctx *Context) error {
	// refs[text section] = function symbols its relocations name. Each
	// object's references are found in parallel, then gathered in file
	// order.
	type ref struct{ from, fn int32 } // from -1: a data section's
	per := make([][]ref, len(ctx.Objs))
	parallelFor(len(ctx.Objs), ctx.Opts.Threads, func(i int) error {
		o := ctx.Objs[i]
		o.eachRelocSection(func(t int, rels []elf.Rela) {
			code := o.F.Sections[t].Flags&elf.SHFExecInstr != 0
			from := o.SecMap[t]
			if from < 0 && code && o.Drop[t] {
				from = winnerCode(ctx, o, t)
			}
			if from < 0 || !code && o.F.Sections[t].Flags&elf.SHFAlloc == 0 {
				return
			}
			if !code {
				from = -1
			}
			for _, r := range rels {
				if m := remapSym(o, r.Sym); m >= 0 && ctx.Syms[m].Type() == elf.STTFunc {
					per[i] = append(per[i], ref{from, m})
				}
			}
		})
		return nil
	})
	refs := newLists[int32](len(ctx.Secs))
	var dataRefs []int32
	for _, rs := range per {
		for _, r := range rs {
			if r.from >= 0 {
				refs.count(r.from)
			} else {
				dataRefs = append(dataRefs, r.fn)
			}
		}
	}
	refs.place()
	for _, rs := range per {
		for _, r := range rs {
			if r.from >= 0 {
				refs.put(r.from, r.fn)
			}
		}
	}
	refs.done()
	ctx.codeRefs = refs
	live := make([]bool, len(ctx.Syms))
	var work []int32
	mark := func(f int32) {
		if !live[f] {
			live[f] = true
			work = append(work, f)
		}
	}
	for _, s := range ctx.Syms {
		if s.Type() != elf.STTFunc || s.Sec < 0 || s.IsSecSym {
			continue
		}
		if s.Other&stoCudaEntry != 0 && ctx.Opts.kernelUsed(s.Name) || s.Other&stoCudaObscure != 0 || (ctx.Opts.PreserveRelocs && ctx.Objs[s.File].System) {
			mark(s.ID)
		}
	}
	for _, f := range dataRefs {
		mark(f)
	}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		if sec := ctx.Syms[f].Sec; sec >= 0 {
			for _, g := range refs.of(sec) {
				mark(g)
			}
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
	undefFunc := false // (without one, call edges change nothing)
	for _, id := range ctx.Globals {
		if s := ctx.Syms[id]; s.Sec < 0 && s.Shndx == 0 && s.Type() == elf.STTFunc {
			undefFunc = true
			break
		}
	}
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
		if undefFunc {
			named[i] = callEdges(ctx, o, named[i])
		}
		return nil
	})
	used := make([]bool, len(ctx.Syms))
	for _, ms := range named {
		for _, m := range ms {
			used[m] = true
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

// winnerCode is the output code section of the definition that replaced
// the weak function whose code is input section t of o (-1 if none).
// nvlink keeps the calls of the replaced code as calls of the function, so
// what only the loser called stays (testdata/crafted/weak-loser-cleanup).
func winnerCode(ctx *Context, o *Obj, t int) int32 {
	for i := range o.F.Symbols {
		s := &o.F.Symbols[i]
		if int(s.Shndx) == t && s.Type() == elf.STTFunc && o.SymMap[i] >= 0 {
			return ctx.Syms[o.SymMap[i]].Sec
		}
	}
	return -1
}

// kernelUsed reports whether the entry named name is a root. nvlink 11.8
// keeps, once --kernels-used or --variables-used is given, only the entries
// whose names contain one of the --kernels-used strings: --variables-used
// alone removes every kernel (testdata/crafted/variables-used).
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

// callEdges appends to named the undefined callees of o's call edges
// (block -1 of .nv.callgraph) whose caller is a live function.
func callEdges(ctx *Context, o *Obj, named []int32) []int32 {
	for si := range o.F.Sections {
		s := &o.F.Sections[si]
		if s.Type != elf.SHTCudaCallgraph {
			continue
		}
		for block, e := range elf.CallgraphRecords(s.Data) {
			if block != -1 || e.Callee <= 0 || ctx.liveSym(o, e.Caller) < 0 {
				continue
			}
			if m := remapSym(o, uint32(e.Callee)); m >= 0 && ctx.Syms[m].Sec < 0 && ctx.Syms[m].Shndx == 0 {
				named = append(named, m)
			}
		}
	}
	return named
}

// referencedLive reports whether code that survived dead code elimination
// still names symbol id, by a relocation or (for an undefined function) a
// call-graph edge; references from removed code do not count.
func (ctx *Context) referencedLive(id int32) bool {
	return !ctx.Syms[id].dead && int(id) < len(ctx.liveRefs) && ctx.liveRefs[id]
}
