package merge

// dumpcg: nvlink's --dump-callgraph report, printed on the diagnostics
// stream after the stack-size warnings and before undefined references.
//
// Inputs: the input symbol tables (node numbering), the merged call graph
// (buildCallgraph) and the output .nv.info (register counts).
// Outputs: one text block in ctx.Diags. The function numbering below is
// nvlink's own; only the report uses it.
// Invariants: node numbers depend only on the inputs' order and symbol
// tables, so the report is the same at every thread count.
//
// Node numbering, as observed with nvlink 11.8 (testdata/crafted/callgraph*
// and the corpus): inputs are walked in link order and each one's symbol
// table in index order. A function symbol whose name has no node yet gets
// the next number, whether it is defined there or not; before the first
// such undefined function of an input, one extra number is taken that
// never prints a name: the nameless local function symbol nvlink makes at
// that point, which the output keeps only under --preserve-relocs or -g
// (see mergeGlobal), and which then prints as "N:  ->". A function that is not in the output (removed
// system-library code) keeps its number and prints as a blank line, as do
// those extra numbers.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/demangle"
	"github.com/warplink/warplink/internal/diag"
)

// cgReport is what finalize records for the report (only under
// --dump-callgraph): each function's own register count and the entries
// whose count propagateRegCount raised.
type cgReport struct {
	ownRegs map[int32]uint32
	raised  []regRaise
}

// funcSlot is the input symbol a function number goes to: symbol sym of
// object obj, or (obj < 0) a number that prints blank.
type funcSlot struct {
	obj, sym int32
}

// numberOf is the function number of output symbol sym, if it has one.
func numberOf(number []int32, sym int32) (int, bool) {
	if sym < 0 || int(sym) >= len(number) || number[sym] == 0 {
		return 0, false
	}
	return int(number[sym]), true
}

// regRaise is an entry whose EIATTR_REGCOUNT was raised to v, the count of
// src, a function it can call.
type regRaise struct {
	entry, src int32
	v          uint32
}

// cgNode is one numbered function of the report; sym is its output symbol
// ID, -1 for the numbers that print blank; nameless marks the number of
// the nameless function nvlink makes before an input's first new
// undefined function.
type cgNode struct {
	sym      int32
	nameless bool
}

// callgraphNodes numbers the functions as nvlink does (see the file
// comment) and returns the nodes, 1-based (nodes[0] is unused), and the
// node of each output symbol (by symbol ID; 0: none).
func callgraphNodes(ctx *Context) ([]cgNode, []int32) {
	slots := functionSlots(ctx.Objs)
	nodes := make([]cgNode, 1, len(slots)+1)
	nodes[0] = cgNode{sym: -1}
	bySym := make([]int32, len(ctx.Syms))
	for _, f := range slots {
		sym := int32(-1)
		if f.obj >= 0 {
			sym = ctx.liveSym(ctx.Objs[f.obj], uint32(f.sym))
			if sym >= 0 && (int(sym) >= len(bySym) || bySym[sym] != 0) {
				sym = -1
			}
		}
		if sym >= 0 {
			bySym[sym] = int32(len(nodes))
		}
		nodes = append(nodes, cgNode{sym: sym, nameless: f.obj < 0})
	}
	return nodes, bySym
}

// functionSlots lists the input symbols of nvlink's function numbers, in
// number order (see the file comment): only the inputs decide them.
func functionSlots(objs []*Obj) []funcSlot {
	var slots []funcSlot
	byName := map[string]bool{} // global names numbered
	for k, o := range objs {
		blank := false
		for i := range o.F.Symbols {
			s := &o.F.Symbols[i]
			if i == 0 || s.Type() != elf.STTFunc {
				continue
			}
			// Locals never match by name: each is numbered.
			if s.Bind() != elf.STBLocal {
				if byName[s.Name] {
					continue
				}
				byName[s.Name] = true
			}
			if s.Shndx == elf.SHNUndef && !blank {
				blank = true
				slots = append(slots, funcSlot{obj: -1})
			}
			slots = append(slots, funcSlot{obj: int32(k), sym: int32(i)})
		}
	}
	return slots
}

// dumpCallgraph records the --dump-callgraph report.
func dumpCallgraph(ctx *Context) {
	if len(ctx.Objs) == 0 {
		ctx.Diags.Text(diag.At(diag.PhaseReports, 1, 0), "No relocatable objects found. Did not generate callgraph.\n")
		return
	}
	nodes, bySym := callgraphNodes(ctx)
	taken := map[int32]bool{}
	for _, s := range ctx.Secs {
		if s.gen != nil && s.gen.callgraph != nil {
			for _, e := range s.gen.callgraph.lists[-2] {
				taken[e.caller] = true
			}
		}
	}
	regs := ctx.cg.ownRegs
	var b strings.Builder
	fmt.Fprintf(&b, "callgraph for %s:\n", ctx.Opts.Arch)
	b.WriteString("# A: s -> B // s (number A) potentially calls B\n")
	b.WriteString("# s [N]     // s uses N registers\n")
	b.WriteString("# ^s        // s is entry point\n")
	b.WriteString("# &s        // s has address taken\n")
	for n := 1; n < len(nodes); n++ {
		fmt.Fprintf(&b, "%d: ", n)
		id := nodes[n].sym
		if id < 0 {
			if nodes[n].nameless && ctx.keep.Placeholder {
				// Kept in the output then, it prints as a function with
				// no name and no calls (corpus xcall with either).
				b.WriteString(" ->")
			}
			b.WriteString("\n")
			continue
		}
		s := ctx.Syms[id]
		if s.Other&stoCudaEntry != 0 {
			b.WriteByte('^')
		}
		if taken[id] {
			b.WriteByte('&')
		}
		b.WriteString(display(s.Name))
		if r, ok := regs[id]; ok {
			fmt.Fprintf(&b, " [%d]", r)
		}
		b.WriteString(" ->")
		calls := ctx.calls.of(id)
		for k := len(calls) - 1; k >= 0; k-- { // latest first, as .nv.callgraph
			if m, ok := numberOf(bySym, calls[k]); ok {
				fmt.Fprintf(&b, " %d", m)
			}
		}
		b.WriteString("\n")
	}
	raised := ctx.cg.raised
	sort.SliceStable(raised, func(i, j int) bool {
		a, _ := numberOf(bySym, raised[i].entry)
		b, _ := numberOf(bySym, raised[j].entry)
		if a != b {
			return a < b
		}
		return raised[i].entry < raised[j].entry
	})
	for _, r := range raised {
		fmt.Fprintf(&b, "regcount %d for %s propagated to entry %s\n", r.v, display(ctx.Syms[r.src].Name), display(ctx.Syms[r.entry].Name))
	}
	ctx.Diags.Text(diag.At(diag.PhaseReports, 1, 0), b.String())
}

// display is a function name as the report prints it: demangled, after
// the "__nv_static_<n>__<n chars>_" prefix nvcc gives file-local functions.
func display(name string) string {
	if rest, ok := strings.CutPrefix(name, "__nv_static_"); ok {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if n, err := strconv.Atoi(rest[:i]); err == nil && n >= 0 && strings.HasPrefix(rest[i:], "__") && n <= len(rest)-i-2 {
			name = rest[i+2+n:]
		}
	}
	out, _ := demangle.Demangle(name)
	return out
}
