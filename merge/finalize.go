package merge

// finalize: build the sections the linker generates (.nv.info records,
// .nv.callgraph, .nv.prototype, .nv.rel.action), report undefined
// references, compute the attributes that depend on the whole call graph,
// then fix the final section order and symbol table indices.
//
// Inputs: merge and relocate results. Outputs: OutSec.Data of generated
// sections, Context.Order, OutSec.Index, OutSym.Index.
// Invariants: section order is nvlink's bucket order (non-alloc, relocation
// sections, read-only data, code, writable data), stable by creation order
// inside a bucket; symbols are null, the positive (local) array, then the
// negative (global) array, and .symtab's sh_info is the first global.
// Work runs in parallel only where it reads the output without adding to
// it: the inputs' .nv.info records are translated (startObjectInfo) while
// the call edges are collected, and both finish before the call graph's
// section is made; what each function's section holds is prepared in
// parallel, the sections made in order. This pass runs with the Go heap at
// its limit, where allocations cost collections: tables are sized once.
// Once the call graph is collected, it frees a small link's decoded input
// tables (symbols, relocations, .nv.info records: releaseTables), which
// nothing reads after that.

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/warplink/warplink/elf"
)

// relActionTable is the constant .nv.rel.action contents nvlink 11.8 writes
// into every executable for sm_90 (observed identical in every reference
// output of the corpus).
var relActionTable = []byte{
	0x4b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x08, 0x10, 0x0a, 0x2f, 0x22,
	0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x20, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x30, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x38, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x18, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x20, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x28, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x30, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x38, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x10, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x18, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x20, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x28, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x30, 0x08, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x38, 0x08, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x14, 0x2c, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00,
}

// allocSec returns storage for a new output section from a slab.
func (ctx *Context) allocSec() *OutSec {
	if len(ctx.secSlab) == cap(ctx.secSlab) {
		ctx.secSlab = make([]OutSec, 0, 1024)
	}
	ctx.secSlab = ctx.secSlab[:len(ctx.secSlab)+1]
	return &ctx.secSlab[len(ctx.secSlab)-1]
}

// newSection creates a generated output section.
func (ctx *Context) newSection(name string, typ uint32, flags, align, entsize uint64) *OutSec {
	s := ctx.allocSec()
	*s = OutSec{ID: int32(len(ctx.Secs)), Name: name, Type: typ, Flags: flags, Align: align, Entsize: entsize,
		InfoSym: -1, InfoSec: -1, SymID: -1}
	ctx.Secs = append(ctx.Secs, s)
	if !ctx.secNamesDone {
		ctx.secByName[name] = s.ID
		ctx.noteSecName(s.ID, name)
	}
	ctx.addStr(ctx.ShStr, name, &s.nameOff)
	return s
}

// symIndexAttr reports EIATTR codes whose payload starts with a symbol index.
func symIndexAttr(code uint8) bool {
	switch code {
	case elf.EIAttrFrameSize, elf.EIAttrMinStackSize, elf.EIAttrMaxStackSize, elf.EIAttrRegcount,
		elf.EIAttrParamCbank, elf.EIAttrSamRegionStackSize:
		return true
	}
	return false
}

func finalize(ctx *Context) error {
	// nvlink reports undefined references after the stack-size warnings
	// and the call graph dump, and still prints the -v summary: the
	// passes below run either way, and run stops before write.
	reportUndefined(ctx)
	// Translating the inputs' .nv.info records (parallel) and collecting
	// the call edges (serial) only read the output so far: they overlap.
	info := startObjectInfo(ctx)
	buildCallgraph(ctx, info.wait)
	makeKernelBanks(ctx)
	addBoundNames(ctx)
	// objectInfo is over (buildCallgraph waited for it): no pass reads the
	// inputs' symbol tables, relocations or .nv.info records after this.
	// Removing unused kernels, nvlink 11.8 makes (and drops) a section
	// named TEMP_MERGED_CONSTANTS for the module's constants (crafted
	// merged-constants-name), and leaves a value in the null symbol
	// (lastSingleConstant reads the inputs' symbol tables: now).
	_, constants := ctx.secByName[moduleConstants]
	mergedConstants := constants && !ctx.Opts.Debug && ctx.usedFilter()
	if mergedConstants {
		if single := lastSingleConstant(ctx); single >= 0 {
			ctx.nullSymValue = ctx.Syms[single].Value
		}
	}
	releaseTables(ctx)
	ctx.calls, ctx.callers = calleesByCaller(ctx.cgEdges, len(ctx.Syms))
	propagateBarriers(ctx)
	if ctx.hasExtern && !ctx.Opts.Debug {
		if len(ctx.externOff) > 0 {
			// nvlink adds this name (no symbol has it) when code a
			// kernel runs uses extern __shared__ memory (not when
			// --kernels-used removed it: crafted extern-shared-unused).
			// (nvlink 12.5 does not: Release.NamesOfDropped.)
			if ctx.Rel.NamesOfDropped {
				ctx.Str.Add("externsharedinstance")
			}
		}
		// The .nv_debug.shared that extern __shared__ memory keeps has no
		// section symbol, even where an input's module-scope shared
		// variables brought one (testdata/crafted/extern-shared-module),
		// but under --preserve-relocs.
		if id, ok := ctx.secByName[moduleShared]; ok && ctx.Secs[id].SymID >= 0 && !ctx.Opts.PreserveRelocs {
			ctx.Syms[ctx.Secs[id].SymID].dead = true
		}
	}
	buildNvInfo(ctx, info)
	keyInfoSections(ctx)
	// The inputs' relocations and resolutions are not read after this
	// point (the arena holds most of them: this matters without one).
	ctx.Res = nil
	for _, o := range ctx.Objs {
		o.relSecs, o.resID = nil, nil
	}
	if ctx.Opts.DumpCallgraph {
		dumpCallgraph(ctx)
	}
	if mergedConstants && ctx.Rel.MergedConstantsName {
		ctx.addSecName("TEMP_MERGED_CONSTANTS", -1)
	}
	lateSharedSymbols(ctx)
	rel := ctx.newSection(".nv.rel.action", elf.SHTCudaRelAction, 0, 8, 8)
	rel.Data = ctx.Rel.RelAction
	rel.Size = uint64(len(rel.Data))
	rel.SymID = newSym(ctx, OutSym{Name: rel.Name, Info: elf.STTSection, Sec: rel.ID, IsSecSym: true}, false)
	for _, s := range ctx.Secs {
		if s.infoIn > 0 && s.InfoSec < 0 {
			s.InfoSec = ctx.Objs[s.infoObj].SecMap[s.infoIn]
		}
	}
	toolNote(ctx)
	compatOnce(ctx)
	relayoutStrings(ctx)
	orderSections(ctx)
	reorderByInput(ctx)
	indexSymbols(ctx)
	if ctx.Opts.Verbose {
		reportProperties(ctx)
	}
	return nil
}

// releaseTablesBelow bounds the tables releaseTables frees: 8 MiB, about
// 8,000 generated objects. Larger links are below nvlink's peak RSS
// anyway, and there the freed memory cost the next process: this VM's
// kernel hands freed memory back to its host after a couple of seconds
// (free page reporting), and a link started then has to fault it in again
// from the host (100,000 objects, one link after another: 15 % slower
// at best in the benchmark; read, merge and write twice as slow in the
// link after one that had freed 100 MB midway).
const releaseTablesBelow = 8 << 20

// releaseTables frees what nothing reads once finalize has collected the
// call graph (and waited for objectInfo): the inputs' symbol tables,
// decoded relocations and .nv.info records (Context.tables; 4.2 MB at
// 4,000 objects, a sixth of the arena), up to releaseTablesBelow. What
// finalize and write allocate after it comes instead of on top of it.
// Freed before buildNvInfo, whose records and the symbol indices grow
// the heap by 5 MB at 4,000 objects, this lowers the peak RSS there by
// 4 MB (to below nvlink's), at no cost in time; 1,000 and 2,000 objects
// change little. A small link's tables take small pages
// (Options.SmallPages): in huge pages, what it freed would leave one
// mostly empty before it (1,000 objects: 2 MB more). The symbol
// tables and relocations are dropped from the objects, so that a use
// after this fails at once; a dump (after any pass, or of the call graph,
// which names input symbols) shows them, so they stay for one.
func releaseTables(ctx *Context) {
	if ctx.Opts.Dump != "" || ctx.Opts.DumpCallgraph || ctx.tables.Used() > releaseTablesBelow {
		return
	}
	for _, o := range ctx.Objs {
		o.F.Symbols, o.relSecs = nil, nil // (nvinfo went after its last use)
	}
	ctx.tables.Free()
}

// reportProperties prints nvlink's -v summary: global memory and
// module-scope constant banks, then each entry's resources, latest first.
func reportProperties(ctx *Context) {
	var gmem uint64
	var banks []string
	for _, id := range ctx.Order {
		s := ctx.Secs[id]
		switch {
		case s.Name == ".nv.global" || s.Name == ".nv.global.init":
			gmem += s.Size
		case isModuleBankName(s.Name):
			banks = append(banks, fmt.Sprintf(", %d bytes cmem[%s]", s.Size, s.Name[len(".nv.constant"):]))
		}
	}
	seq := 0
	info := func(format string, a ...any) {
		ctx.Diags.Infof([3]int{5, 0, seq}, format, a...)
		seq++
	}
	info("%d bytes gmem%s", gmem, strings.Join(banks, ""))
	regs, frame := map[int32]uint32{}, map[int32]uint32{}
	for _, id := range ctx.Secs {
		if id.Name != ".nv.info" {
			continue
		}
		for _, r := range id.info {
			switch r.a.Code {
			case elf.EIAttrRegcount:
				regs[r.sym] = r.a.U32(4)
			case elf.EIAttrFrameSize:
				if _, ok := frame[r.sym]; !ok {
					frame[r.sym] = r.a.U32(4)
				}
			case elf.EIAttrMinStackSize:
				// The whole stack an entry needs; its own frame when
				// recursion leaves that unknown.
				if v := r.a.U32(4); v != 0xFFFFFFFF {
					frame[r.sym] = v
				}
			}
		}
	}
	texts := ctx.textSections()
	for k := len(texts) - 1; k >= 0; k-- {
		t := ctx.Secs[texts[k]]
		f := t.InfoSym
		if f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 {
			continue
		}
		suffix := strings.TrimPrefix(t.Name, ".text")
		size := func(prefix string) uint64 {
			if id, ok := ctx.secByName[prefix+suffix]; ok && !ctx.Secs[id].Dead {
				return ctx.Secs[id].Size
			}
			return 0
		}
		info("Function properties for '%s':", ctx.Syms[f].Name)
		info("used %d registers, %d stack, %d bytes smem, %d bytes cmem[0], %d bytes lmem",
			regs[f], frame[f], size(".nv.shared"), size(".nv.constant0"), size(".nv.local"))
	}
}

// reportUndefined reports every global still undefined, naming the first
// file that referenced it: data whoever names it, a function only when
// code that dead code elimination kept names it (nvlink 11.8: an extern
// __device__ variable that only an uncalled function reads is an undefined
// reference, an undefined function that only it calls is not; crafted
// undefined-data-dead-code).
func reportUndefined(ctx *Context) {
	for pos, id := range ctx.Globals {
		s := ctx.Syms[id]
		if t := s.Type(); s.Sec >= 0 || s.Shndx != 0 || !ctx.referencedLive(id) && t != elf.STTObject && t != sttCudaObject {
			continue
		}
		if driverProvided(s.Name) || ctx.Opts.AllowUndefinedGlobals || s.Bind() == elf.STBWeak && ctx.Rel.LocalByBinding ||
			ctx.Rel.ReservedSmemGlobal && s.Name == reservedSmemName {
			// (Weak undefined symbols of the global part: CUDA 13.0's
			// objects have their __UFT/__UDT tables and
			// .nv.reservedSmem.offset0 there.)
			continue
		}
		if ctx.bound.lists(id) {
			// A bound texture or surface reference (boundref.go), with
			// its slots, or one no kept kernel uses that only -G debug
			// information names (crafted debug-bound-references-unused).
			continue
		}
		if kind, ok := boundReference(s.Type()); ok {
			// Sampler references (which nvcc does not write), and a
			// texture or surface reference no kernel reaches: a clear
			// refusal, not an undefined reference (see boundref.go).
			why := "no kernel reaches it"
			if kind == "Sampler" {
				why = "sampler references are not linked"
			}
			ctx.Diags.Errorf([3]int{3, 2, pos}, "%s reference '%s' in '%s' is not supported by warplink (%s)",
				kind, s.Name, ctx.Objs[s.File].Name, why)
			continue
		}
		ctx.Diags.Errorf([3]int{3, 2, pos}, "Undefined reference to '%s' in '%s'", s.Name, ctx.Objs[s.File].Name)
	}
}

// boundReference reports the symbol types of bound (pre-CUDA 12)
// texture and surface references, with their kind, as ptxas writes them:
// 10 for a texture, 12 for a surface (sampler 11).
func boundReference(typ uint8) (string, bool) {
	switch typ {
	case 10:
		return "Texture", true
	case 11:
		return "Sampler", true
	case 12:
		return "Surface", true
	}
	return "", false
}

// driverProvided reports functions the CUDA driver supplies at load time
// (the device "system calls"), which may stay undefined in an executable.
func driverProvided(name string) bool {
	switch name {
	case "vprintf", "malloc", "free", "__assertfail", "__cuda_syscall":
		return true
	}
	// cnp*: the device runtime's entry points into the driver.
	return strings.HasPrefix(name, "__cuda_syscall") || strings.HasPrefix(name, "cnp")
}

// remapSym maps an input symbol index of o to the output symbol index it
// will have; -1 when the symbol has no output record.
func remapSym(o *Obj, idx uint32) int32 {
	if int(idx) >= len(o.SymMap) {
		return -1
	}
	return o.SymMap[idx]
}

// liveSym is remapSym, but -1 also for symbols dead code elimination removed.
func (ctx *Context) liveSym(o *Obj, idx uint32) int32 {
	m := remapSym(o, idx)
	if m >= 0 && ctx.Syms[m].dead {
		return -1
	}
	return m
}

// infoRec is one .nv.info record of the output; sym is the output symbol
// ID that the payload's first word names (-1 when it names none).
type infoRec struct {
	a       elf.Attr
	externs *[]int32 // EIATTR_EXTERNS: output symbol IDs (nil: another record; behind a pointer, as few records have one)
	sym     int32
	dropped bool // removed from the output
}

// buildNvInfo builds .nv.info and the per-function .nv.info.<f> sections.
// nvlink keeps the records of a section in a list it prepends to, so each
// output section holds its records in reverse input order. The linker drops
// the per-function MAX_STACK_SIZE, keeps of each EXTERNS list the entries
// the link leaves unresolved and completes it with what the function
// reaches (closeExterns). Every function gets a .nv.info.<f>, in code
// order.
func buildNvInfo(ctx *Context, job *infoJob) {
	// Gather the objects' translated records in file order: the global
	// ones, each object's in its part of one array, closed up.
	per := job.per
	global := job.global[:0]
	for i := range per {
		global = append(global, per[i].global...) // (moves within the array, to the left)
	}
	texts := ctx.textSections()
	perFunc := make([][]infoRec, len(ctx.Secs)) // by output text section; nil: none
	for i := range per {
		for _, f := range per[i].perFunc {
			if l := perFunc[f.text]; l != nil {
				perFunc[f.text] = append(l[:len(l):len(l)], f.recs...)
			} else {
				perFunc[f.text] = f.recs // usually the only contributor
			}
		}
	}
	order := ctx.infoOrder
	for _, t := range texts {
		if !ctx.infoNoted(t) {
			order = append(order, t)
		}
	}
	// The code sections in the order their .nv.info.<f> came in the inputs.
	var inOrder []int32
	for i := range per {
		for _, f := range per[i].perFunc {
			inOrder = append(inOrder, f.text)
		}
	}
	newExterns := closeExterns(ctx, perFunc, order, inOrder)
	gs := ctx.newSection(".nv.info", elf.SHTCudaInfo, 0, 4, 0)
	gs.LinkSymtab = true
	propagateRegCount(ctx, global)
	stacks, unknown := stackSizes(ctx, global, texts)
	slices.Reverse(global)
	gs.info = append(global, stacks...)
	gs.gen = &genSec{minStack: len(global)}
	// Each function's section: its records prepared in parallel, the
	// sections made in order.
	live := make([]int32, 0, len(order))
	for _, t := range order {
		if !ctx.Secs[t].Dead {
			live = append(live, t)
		}
	}
	type funcInfo struct {
		name string
		recs []infoRec
	}
	ctaidz := ctaidzEntries(ctx, perFunc, live)
	mbarriers := mbarrierEntries(ctx, perFunc, live)
	made := make([]funcInfo, len(live))
	parallelFor(len(live), ctx.Opts.Threads, func(k int) error {
		t := live[k]
		recs := perFunc[t]
		if !hasAttr(recs, elf.EIAttrCudaApiVersion) {
			recs = append(recs, infoRec{a: elf.Attr{Format: elf.EIFmtSVal, Code: elf.EIAttrCudaApiVersion,
				Payload: le32(ctx.Header.Version)}, sym: -1})
		}
		slices.Reverse(recs) // perFunc is not used after this loop
		if unknown[ctx.Secs[t].InfoSym] {
			// The entry's call stack size is unknown too: nvlink sets
			// EIATTR_CRS_STACK_SIZE to -1, appending the record when the
			// input had none.
			if k := findAttr(recs, elf.EIAttrCrsStackSize); k >= 0 {
				recs[k].a.Payload = le32(0xFFFFFFFF)
			} else {
				recs = append(recs, infoRec{a: elf.Attr{Format: elf.EIFmtSVal, Code: elf.EIAttrCrsStackSize,
					Payload: le32(0xFFFFFFFF)}, sym: -1})
			}
		}
		// (Before CTAIDZ_USED: crafted mbarrier-propagation.)
		if n, ok := mbarriers[t]; ok {
			if k := findAttr(recs, elf.EIAttrNumMbarriers); k >= 0 {
				recs[k].a.Value = n
			} else {
				recs = append(recs, infoRec{a: elf.Attr{Format: elf.EIFmtHVal, Code: elf.EIAttrNumMbarriers, Value: n}, sym: -1})
			}
		}
		if ctaidz[ctx.Secs[t].InfoSym] {
			recs = append(recs, infoRec{a: elf.Attr{Format: elf.EIFmtNVal, Code: elf.EIAttrCtaidzUsed}, sym: -1})
		}
		if r, ok := newExterns[t]; ok {
			recs = append(recs, r) // (after that one: testdata/crafted/externs-moved)
		}
		made[k] = funcInfo{".nv.info" + strings.TrimPrefix(ctx.Secs[t].Name, ".text"), recs}
		return nil
	})
	for k, t := range live {
		s := ctx.newSection(made[k].name, elf.SHTCudaInfo, 0, 4, 0)
		s.LinkSymtab = true
		s.InfoSec = t
		s.info = made[k].recs
	}
}

// propagateRegCount raises each entry's EIATTR_REGCOUNT to the largest
// count among the functions it can reach; a raised count is also written
// to the high byte of its code section's sh_info. Other functions keep
// their own counts.
func propagateRegCount(ctx *Context, global []infoRec) {
	// By output symbol ID: the function's own REGCOUNT record (+1; 0:
	// none), its callers (in call edge order), its best count so far.
	own := make([]int32, len(ctx.Syms))
	for i, r := range global {
		if r.a.Code == elf.EIAttrRegcount && r.sym >= 0 && int(r.sym) < len(own) {
			own[r.sym] = int32(i) + 1
		}
	}
	// Each function's count becomes the largest over what it can reach
	// (raiseCallers: the source named in --dump-callgraph's report is
	// independent of scheduling too).
	type best struct {
		v   uint32
		src int32 // the function whose own count v is
	}
	val := make([]best, len(ctx.Syms))
	var queue []int32
	for f := range own {
		if own[f] == 0 {
			continue
		}
		n := global[own[f]-1].a.U32(4)
		if ctx.Opts.DumpCallgraph {
			if ctx.cg.ownRegs == nil {
				ctx.cg.ownRegs = map[int32]uint32{}
			}
			ctx.cg.ownRegs[int32(f)] = n // the report shows the counts before propagation
		}
		val[f] = best{n, int32(f)}
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
		if own[f] == 0 || ctx.Syms[f].Other&stoCudaEntry == 0 {
			continue
		}
		i, b := own[f]-1, val[f]
		if b.v > global[i].a.U32(4) {
			p := append([]byte(nil), global[i].a.Payload...)
			binary.LittleEndian.PutUint32(p[4:], b.v)
			global[i].a.Payload = p
			if sec := ctx.Syms[f].Sec; sec >= 0 && ctx.Rel.TextRegcount {
				ctx.Secs[sec].InfoExtra = b.v << 24
			}
			if ctx.Opts.DumpCallgraph {
				ctx.cg.raised = append(ctx.cg.raised, regRaise{entry: int32(f), src: b.src, v: b.v})
			}
		}
	}
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
		reversed := make([]cgEdge, len(ctx.cgEdges))
		for i, e := range ctx.cgEdges {
			reversed[i] = cgEdge{caller: e.callee, callee: e.caller}
		}
		ctx.callersOf, _ = calleesByCaller(reversed, len(ctx.Syms))
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
	raiseCallers(ctx, queue, func(f, c int32) bool {
		if val[f] > val[c] {
			val[c] = val[f]
			return true
		}
		return false
	})
	for _, s := range ctx.Syms {
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
func stackSizes(ctx *Context, global []infoRec, texts []int32) ([]infoRec, map[int32]bool) {
	calls := ctx.calls
	unknownAt := map[int32]bool{}
	// By output symbol ID.
	frame := make([]uint32, len(ctx.Syms))
	for _, r := range global {
		if r.a.Code == elf.EIAttrFrameSize && r.sym >= 0 {
			frame[r.sym] = r.a.U32(4)
		}
	}
	const unknown = ^uint64(0)
	// Per function: its depth once known, and whether it is being walked
	// (a call back to it is recursion: unknown) or done.
	const (
		walking = 1 + iota
		done
	)
	memo := make([]uint64, len(ctx.Syms))
	state := make([]uint8, len(ctx.Syms))
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
		if best != unknown {
			best += uint64(frame[f])
		}
		memo[f], state[f] = best, done
		return best
	}
	out := make([]infoRec, 0, len(texts))
	payloads := make([]byte, 8*len(texts))
	for _, t := range texts {
		f := ctx.Secs[t].InfoSym
		if f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 || ctx.dceRoot != nil && !ctx.dceRoot[f] {
			continue
		}
		d := depth(f)
		v := uint32(d)
		if d == unknown {
			v = 0xFFFFFFFF
			unknownAt[f] = true
			if !ctx.Opts.SuppressStackSizeWarning {
				ctx.Diags.Warnf([3]int{3, 0, int(t)}, "Stack size for entry function '%s' cannot be statically determined", ctx.Syms[f].Name)
			}
		}
		p := payloads[8*len(out) : 8*len(out)+8 : 8*len(out)+8]
		binary.LittleEndian.PutUint32(p[4:], v)
		out = append(out, infoRec{a: elf.Attr{Format: elf.EIFmtSVal, Code: elf.EIAttrMinStackSize, Payload: p}, sym: f})
	}
	return out, unknownAt
}

// stoCudaEntry marks kernels (entry functions) in st_other.
const stoCudaEntry = 0x10

// lostDefinition reports whether input symbol i of o is a definition that
// lost resolution (a weak copy replaced by another file's).
func (ctx *Context) lostDefinition(o *Obj, i uint32) bool {
	if int(i) >= len(o.F.Symbols) {
		return false
	}
	s := &o.F.Symbols[i]
	if s.Bind() == elf.STBLocal || s.Shndx == elf.SHNUndef {
		return false
	}
	r := ctx.res(o, int(i))
	return r != nil && (r.File != int32(o.ID) || r.Index != int32(i))
}

// objInfo is one object's .nv.info records, translated (objectInfo).
type objInfo struct {
	global  []infoRec
	perFunc []funcRecs
}

// infoJob is objectInfo running over every object in the background.
type infoJob struct {
	per []objInfo // by file ID, once wait returned
	// global holds every object's global records: object i's part starts
	// where the records of the objects before it could at most end (its
	// per[i].global), with room after them for the MIN_STACK_SIZE records
	// (one per code section at most). (One allocation: finalize runs with
	// the heap at its limit, where each one makes the collector work.)
	global []infoRec
	done   chan struct{}
}

// startObjectInfo translates every object's records in parallel, while
// the caller goes on; the caller must not change the output's symbols or
// sections (the records name them) until wait returns.
func startObjectInfo(ctx *Context) *infoJob {
	j := &infoJob{per: make([]objInfo, len(ctx.Objs)), done: make(chan struct{})}
	at := make([]int, len(ctx.Objs)+1)
	for i, o := range ctx.Objs {
		at[i+1] = at[i] + o.globalInfoCount()
	}
	ntext := 0
	for _, s := range ctx.Secs {
		if s.Flags&elf.SHFExecInstr != 0 {
			ntext++
		}
	}
	j.global = make([]infoRec, at[len(ctx.Objs)]+ntext)
	go func() {
		defer close(j.done)
		parallelFor(len(ctx.Objs), ctx.Opts.Threads, func(i int) error {
			j.per[i].global, j.per[i].perFunc = objectInfo(ctx, ctx.Objs[i], j.global[at[i]:at[i]:at[i+1]])
			ctx.Objs[i].nvinfo = nil // translated: no later pass reads it
			return nil
		})
	}()
	return j
}

// globalInfoCount is how many records o's global .nv.info sections hold.
func (o *Obj) globalInfoCount() int {
	n := 0
	for _, sec := range o.nvinfo {
		if o.F.Sections[sec.si].Name == ".nv.info" {
			n += len(sec.attrs)
		}
	}
	return n
}

func (j *infoJob) wait() { <-j.done }

// funcRecs are the records of one input .nv.info.<f> section, for output
// code section text.
type funcRecs struct {
	text int32
	recs []infoRec
}

// objectInfo translates the .nv.info records of one object to the output:
// symbol indices become output symbols, records of dropped weak copies and
// MAX_STACK_SIZE (recomputed) go, EXTERNS keep what may survive the link.
// The global records are appended to global, which has room for them all.
func objectInfo(ctx *Context, o *Obj, global []infoRec) ([]infoRec, []funcRecs) {
	var perFunc []funcRecs
	for _, in := range o.nvinfo { // (every .nv.info section, in section order)
		s := &o.F.Sections[in.si]
		var textSec int32 = -1
		if s.Name != ".nv.info" {
			if int(s.Info) >= len(o.F.Sections) || o.Drop[s.Info] || o.SecMap[s.Info] < 0 {
				continue
			}
			textSec = o.SecMap[s.Info]
		}
		attrs := in.attrs
		var recs []infoRec
		if textSec < 0 {
			recs = global
		} else {
			recs = make([]infoRec, 0, len(attrs))
		}
		for _, a := range attrs {
			if a.Code == elf.EIAttrMaxStackSize {
				continue
			}
			r := infoRec{a: a, sym: -1}
			if a.Code == elf.EIAttrExterns {
				// What stays is decided later, over the call graph.
				list := []int32{}
				for k := 0; k+4 <= len(a.Payload); k += 4 {
					if m := ctx.liveSym(o, a.U32(k)); m >= 0 && externKept(ctx.Syms[m]) {
						list = append(list, m)
					}
				}
				r.externs = &list
			}
			if a.Code == elf.EIAttrKparamInfo && o.placeholder > 0 && a.Format == elf.EIFmtSVal && len(a.Payload) >= 4 && a.U32(0) == 0 {
				r.sym = o.placeholder - 1 // see mergeGlobal
			}
			if symIndexAttr(a.Code) && a.Format == elf.EIFmtSVal && len(a.Payload) >= 4 {
				r.sym = ctx.liveSym(o, a.U32(0))
				if r.sym < 0 || ctx.lostDefinition(o, a.U32(0)) {
					continue // record of a dropped weak copy
				}
			}
			recs = append(recs, r)
		}
		if textSec < 0 {
			global = recs
		} else {
			perFunc = append(perFunc, funcRecs{textSec, recs})
		}
	}
	return global, perFunc
}

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
func closeExterns(ctx *Context, perFunc [][]infoRec, order, inOrder []int32) (made map[int32]infoRec) {
	calls := ctx.calls
	// Function symbol -> surviving entries (few functions have any: a
	// map, not a slot per symbol).
	own := map[int32][]int32{}
	for t, recs := range perFunc {
		if recs == nil {
			continue
		}
		f := ctx.Secs[t].InfoSym
		for _, r := range recs {
			if r.externs != nil && f >= 0 {
				own[f] = append(own[f], *r.externs...)
			}
		}
	}
	if len(own) == 0 {
		return nil // (no record to close, none to make)
	}
	// rank: where each function with a list of its own has its .nv.info
	// section in the output, the order its list is taken in.
	rank := make(map[int32]int, len(own))
	for k, t := range order {
		if f := ctx.Secs[t].InfoSym; f >= 0 && own[f] != nil {
			if _, ok := rank[f]; !ok {
				rank[f] = k
			}
		}
	}
	// Sets of symbol IDs for one record at a time: an ID is in a set when
	// its stamp is the record's generation.
	seen, visited := make([]uint32, len(ctx.Syms)), make([]uint32, len(ctx.Syms))
	var gen uint32
	// gather is what entry f's callees bring, beyond the symbols in seen:
	// the lists of the functions it reaches, in section order.
	gather := func(f int32) []int32 {
		var reached []int32 // functions with lists of their own
		visited[f] = gen
		queue := append([]int32(nil), calls.of(f)...)
		for len(queue) > 0 {
			g := queue[0]
			queue = queue[1:]
			if visited[g] == gen {
				continue
			}
			visited[g] = gen
			if own[g] != nil {
				reached = append(reached, g)
			}
			queue = append(queue, calls.of(g)...)
		}
		slices.SortFunc(reached, func(a, b int32) int { return rank[a] - rank[b] })
		var more []int32
		for _, g := range reached {
			for _, m := range own[g] {
				if seen[m] != gen {
					seen[m] = gen
					more = append(more, m)
				}
			}
		}
		return more
	}
	// rootList is the root kernel's new list when what the link's live
	// functions name, taken in input order, goes beyond its own list
	// (reversed: nvlink prepends); nil when it does not (its record then
	// stays as any other's: corpus printf).
	rootList := func(f int32) []int32 {
		gen++
		for _, m := range own[f] {
			seen[m] = gen
		}
		gen++
		var all []int32
		grew := false
		for _, t := range inOrder {
			g := ctx.Secs[t].InfoSym
			if ctx.Secs[t].Dead || g < 0 || visited[g] == gen {
				continue
			}
			visited[g] = gen
			for _, m := range own[g] {
				if seen[m] < gen {
					grew = grew || seen[m] != gen-1
					seen[m] = gen
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
	for t, recs := range perFunc {
		if recs == nil || ctx.Secs[t].Dead {
			continue
		}
		f := ctx.Secs[t].InfoSym
		// (Under --kernels-used, only the roots of dead code
		// elimination: a kernel only --preserve-relocs keeps gathers
		// nothing.)
		entry := f >= 0 && ctx.Syms[f].Other&stoCudaEntry != 0 && (ctx.dceRoot == nil || ctx.dceRoot[f])
		had := false // an EXTERNS record keeps entries of its own
		if f >= 0 && f == ctx.rootKernel {
			if all := rootList(f); all != nil {
				for k := range recs {
					if recs[k].externs != nil {
						recs[k].dropped = true
					}
				}
				if made == nil {
					made = map[int32]infoRec{}
				}
				made[int32(t)] = infoRec{a: elf.Attr{Format: elf.EIFmtSVal, Code: elf.EIAttrExterns}, externs: &all, sym: -1}
				continue
			}
		}
		for k := range recs {
			if recs[k].externs == nil {
				continue
			}
			gen++
			list := []int32{}
			if f >= 0 {
				for _, m := range own[f] {
					if seen[m] != gen {
						seen[m] = gen
						list = append(list, m)
					}
				}
			}
			had = true
			if entry {
				// Only entries gather their callees'.
				list = append(list, gather(f)...)
			}
			*recs[k].externs = list
			if len(list) == 0 {
				recs[k].dropped = true
			}
		}
		if entry && !had {
			gen++
			if more := gather(f); len(more) > 0 {
				if made == nil {
					made = map[int32]infoRec{}
				}
				made[int32(t)] = infoRec{a: elf.Attr{Format: elf.EIFmtSVal, Code: elf.EIAttrExterns}, externs: &more, sym: -1}
			}
		}
	}
	return made
}

func hasAttr(rs []infoRec, code uint8) bool { return findAttr(rs, code) >= 0 }

// findAttr is the index of the first record with the code, or -1.
func findAttr(rs []infoRec, code uint8) int {
	for k, r := range rs {
		if r.a.Code == code {
			return k
		}
	}
	return -1
}

func le32(v uint32) []byte {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, v)
	return b
}

// textSections lists the live code sections in creation order.
func (ctx *Context) textSections() []int32 {
	var out []int32
	for _, s := range ctx.Secs {
		if s.Flags&elf.SHFExecInstr != 0 && !s.Dead {
			out = append(out, s.ID)
		}
	}
	return out
}

// encodeInfo writes the records of generated .nv.info sections, now that
// symbol indices are final.
func encodeInfo(ctx *Context) {
	var secs []*OutSec
	for _, s := range ctx.Secs {
		if s.Type == elf.SHTCudaInfo {
			secs = append(secs, s)
		}
	}
	// Each section is encoded on its own (symbols are only read), into a
	// buffer of its exact size.
	parallelFor(len(secs), ctx.Opts.Threads, func(i int) error {
		encodeInfoSection(ctx, secs[i])
		return nil
	})
}

func encodeInfoSection(ctx *Context, s *OutSec) {
	if s.gen != nil && s.gen.minStack > 0 {
		tail := s.info[s.gen.minStack:]
		sort.SliceStable(tail, func(i, j int) bool {
			return ctx.Syms[tail[i].sym].Index < ctx.Syms[tail[j].sym].Index
		})
	}
	size := 0
	for i := range s.info {
		if r := &s.info[i]; !r.dropped {
			size += r.size()
		}
	}
	var scratch []byte // an EXTERNS payload, for one record at a time
	out := ctx.mem.Alloc(size)[:0]
	for i := range s.info {
		r := &s.info[i]
		if r.dropped {
			continue
		}
		var a elf.Attr
		a, scratch = r.outAttr(ctx, scratch)
		start := len(out)
		out = elf.AppendNvInfo(out, []elf.Attr{a})
		if r.sym >= 0 && len(out)-start >= 8 {
			binary.LittleEndian.PutUint32(out[start+4:], uint32(ctx.Syms[r.sym].Index))
		}
	}
	s.Data = out
	s.Size = uint64(len(out))
	if !ctx.Opts.Verbose || s.Name != ".nv.info" { // (-v reports from .nv.info's records)
		s.info = nil // encoded: write's allocations may take the memory
	}
}

// size is the record's size as written (an EXTERNS list takes 4 bytes an
// entry), without encoding it.
func (r *infoRec) size() int {
	if r.externs != nil && r.a.Format == elf.EIFmtSVal {
		return 4 + 4*len(*r.externs)
	}
	return r.a.Size()
}

// outAttr is the record as written: an EXTERNS list gets its payload of
// final symbol indices, encoded into scratch (returned for reuse).
func (r *infoRec) outAttr(ctx *Context, scratch []byte) (elf.Attr, []byte) {
	a := r.a
	if r.externs != nil {
		scratch = scratch[:0]
		for _, m := range *r.externs {
			scratch = binary.LittleEndian.AppendUint32(scratch, uint32(ctx.Syms[m].Index))
		}
		a.Payload = scratch
	}
	return a, scratch
}

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
// The edges are collected while objectInfo runs (see finalize): until
// infoDone returns, only the string table and the edge lists change.
func buildCallgraph(ctx *Context, infoDone func()) {
	cg := &callgraph{lists: map[int32][]cgEdge{}}
	seen := map[cgEdge]bool{}
	taken := map[int32]bool{}
	listed := map[int32]bool{} // in the -2 list from an input's
	for _, o := range ctx.Objs {
		first := len(ctx.cgEdges) // (this file's edges: seen once it is done)
		sites := len(cg.lists[-3])
		o.eachCallgraph(func(s *elf.Section) {
			strs := o.strtab()
			for list, r := range elf.CallgraphRecords(s.Data) {
				ca := ctx.liveSym(o, r.Caller)
				if ca < 0 {
					continue
				}
				if !elf.CallgraphProtoBlock(list) {
					// Two symbols: a call edge (-1), or an indirect call
					// site and a possible callee (-4, CUDA 13.0: virtual).
					cb := ctx.liveSym(o, uint32(r.Callee))
					e := cgEdge{ca, cb}
					switch {
					case cb < 0, list == -1 && o.replacedCopy(r.Caller):
					case list != -1:
						cg.lists[list] = append(cg.lists[list], e)
					case !seen[e]:
						ctx.cgEdges = append(ctx.cgEdges, e)
					}
					continue
				}
				str, ok := elf.CString(strs, uint32(r.Callee))
				if !ok {
					continue
				}
				if list == -2 && listed[ca] {
					continue // (a weak function two objects list: once, the first)
				}
				cg.lists[list] = append(cg.lists[list], cgEdge{ca, int32(ctx.protoString(str))})
				if list == -2 {
					taken[ca] = true
					listed[ca] = true
				}
			}
		})
		for _, e := range ctx.cgEdges[first:] {
			seen[e] = true
		}
		// A file's indirect call sites in the reverse of its order
		// (nvlink prepends them), which orders the edges made for them
		// too (-G virtual calls: crafted callgraph-sites-order).
		slices.Reverse(cg.lists[-3][sites:])
		addLaunchedKernels(ctx, o, cg, taken)
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
	for _, site := range cg.lists[-3] {
		for _, f := range cg.lists[-2] {
			if f.callee == site.callee {
				ctx.cgEdges = append(ctx.cgEdges, cgEdge{site.caller, f.caller})
			}
		}
	}
	infoDone()
	sec := ctx.newSection(".nv.callgraph", elf.SHTCudaCallgraph, 0, 4, 8)
	sec.LinkSymtab = true
	sec.gen = &genSec{callgraph: cg}
	sec.SymID = newSym(ctx, OutSym{Name: sec.Name, Info: elf.STTSection, Sec: sec.ID, IsSecSym: true}, false)
	buildPrototype(ctx)
}

// calleesByCaller groups call edges by caller (nsyms symbols), callees in
// edge order, and lists the callers in order of their first edge.
func calleesByCaller(edges []cgEdge, nsyms int) (lists[int32], []int32) {
	l := newLists[int32](nsyms)
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
// (Obj.launched), in the order of o's relocations.
func addLaunchedKernels(ctx *Context, o *Obj, cg *callgraph, taken map[int32]bool) {
	for _, m := range o.launched {
		if !taken[m] && !ctx.Syms[m].dead {
			taken[m] = true
			cg.lists[-2] = append(cg.lists[-2], cgEdge{m, 0})
		}
	}
}

// protoString is the .strtab offset of a prototype string: the empty one is
// the copy nvlink adds for prototypes (see mergeGlobal) when there is one.
func (ctx *Context) protoString(s string) uint32 {
	if s == "" && ctx.emptyProto != 0 {
		return ctx.emptyProto
	}
	return ctx.Str.Add(s)
}

// callgraph is the merged .nv.callgraph: lists other than -1 by marker.
type callgraph struct {
	lists map[int32][]cgEdge
}

func (o *Obj) strtab() []byte {
	if o.F.StrtabIndex <= 0 {
		return nil
	}
	return o.F.Sections[o.F.StrtabIndex].Data
}

// buildPrototype merges .nv.prototype: (function, prototype string) pairs
// for the functions called directly, one per function, first wins.
func buildPrototype(ctx *Context) {
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
	if ctx.Opts.Debug || ctx.Opts.PreserveRelocs {
		taken = make([]bool, len(ctx.Syms))
		for _, f := range ctx.addressTaken {
			taken[f] = true
		}
	}
	var recs []cgEdge
	seen := make([]bool, len(ctx.Syms))
	for _, o := range ctx.Objs {
		o.eachPrototype(func(s *elf.Section) {
			strs := o.strtab()
			for off := 0; off+8 <= len(s.Data); off += 8 {
				r := elf.CallgraphEntryAt(s.Data, off) // (a .nv.prototype record has the same layout)
				sym := ctx.liveSym(o, r.Caller)
				// (A function called directly keeps its record; under -g
				// or --preserve-relocs any other too, but for the
				// address-taken ones: see taken.)
				if sym < 0 || seen[sym] || !callee[sym] && (taken == nil || taken[sym]) {
					continue
				}
				str, ok := elf.CString(strs, uint32(r.Callee)) // (only for a record kept: most are not)
				if !ok {
					continue
				}
				seen[sym] = true
				recs = append(recs, cgEdge{sym, int32(ctx.Str.Add(str))})
			}
		})
	}
	ctx.Str.Add(".nv.prototype")
	p := ctx.newSection(".nv.prototype", elf.SHTCudaPrototype, 0, 4, 8)
	p.LinkSymtab = true
	p.gen = &genSec{prototype: recs}
	if len(recs) == 0 {
		p.Dead = true
		return
	}
	p.SymID = newSym(ctx, OutSym{Name: p.Name, Info: elf.STTSection, Sec: p.ID, IsSecSym: true}, false)
}

// encodeCallgraph writes .nv.callgraph and .nv.prototype with final indices.
func encodeCallgraph(ctx *Context) {
	le := binary.LittleEndian
	for _, s := range ctx.Secs {
		if s.gen == nil {
			continue
		}
		switch {
		case s.gen.callgraph != nil:
			// Callers in the order their symbols were created (nvlink's
			// function numbers: file order, .symtab order inside a file),
			// each one's callees latest first (nvlink prepends). (Symbol
			// index order, which the corpus also fits, puts a kernel
			// after the weak destructors of a later object:
			// testdata/crafted/virtual-cross-object.)
			calls, callers := ctx.calls, slices.Clone(ctx.callers)
			if !ctx.Rel.IndirectEdges {
				calls, callers = calleesByCaller(ctx.cgEdges[:ctx.directEdges], len(ctx.Syms))
			}
			slices.Sort(callers)
			out := le.AppendUint32(nil, 0)
			out = le.AppendUint32(out, ^uint32(0))
			for _, c := range callers {
				calls := calls.of(c)
				for k := len(calls) - 1; k >= 0; k-- {
					out = le.AppendUint32(out, uint32(ctx.Syms[c].Index))
					out = le.AppendUint32(out, uint32(ctx.Syms[calls[k]].Index))
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
					out = le.AppendUint32(out, uint32(ctx.Syms[e.caller].Index))
					if elf.CallgraphProtoBlock(m) {
						out = le.AppendUint32(out, uint32(e.callee)) // a .strtab offset
					} else {
						out = le.AppendUint32(out, uint32(ctx.Syms[e.callee].Index))
					}
				}
			}
			s.Data, s.Size = out, uint64(len(out))
		case s.gen.prototype != nil:
			// In the order of the functions' symbols, as the call
			// graph's callers (sm_80's cooperative-groups helpers, which
			// come before the function calling them:
			// testdata/crafted/prototype-order).
			recs := slices.Clone(s.gen.prototype)
			slices.SortStableFunc(recs, func(a, b cgEdge) int { return cmp.Compare(a.caller, b.caller) })
			var out []byte
			for _, e := range recs {
				out = le.AppendUint32(out, uint32(ctx.Syms[e.caller].Index))
				out = le.AppendUint32(out, uint32(e.callee))
			}
			s.Data, s.Size = out, uint64(len(out))
		}
	}
}

// bucket is a section's place in nvlink's output order.
func bucket(s *OutSec) int {
	switch {
	case s.Type == elf.SHTRela || s.Type == elf.SHTRel || s.Type == elf.SHTCudaResolvedRela:
		return 1
	case s.Flags&elf.SHFAlloc == 0:
		return 0
	case s.Flags&elf.SHFExecInstr != 0:
		return 3
	case s.Flags&elf.SHFWrite != 0:
		return 4
	default:
		return 2
	}
}

// empty reports sections nvlink drops from the output.
// An input section stays even when empty (nvlink keeps an empty
// .debug_frame, for one).
func (s *OutSec) empty() bool {
	// Empty NOBITS sections go (module-scope shared memory laid out per
	// entry leaves .nv_debug.shared empty) unless marked to stay.
	return s.Dead || (s.Size == 0 && !s.keep && (len(s.Pieces) == 0 || s.Nobits) &&
		len(s.Relocs) == 0 && len(s.info) == 0 && !s.gen.contents())
}

// orderSections assigns final section indices: the fixed four first, then
// the buckets in order, each stable-sorted by section type (so writable
// PROGBITS data precedes NOBITS data).
func orderSections(ctx *Context) {
	// A stable counting sort by (bucket, type); relocation sections
	// (bucket 1) stay in creation order whatever their type. The keys are
	// few (a dozen): each section keeps the index of its key in a short
	// list, and nothing is allocated per section but that index and the
	// order. (This runs when the heap is near its limit, where every
	// allocation helps the collector.)
	key := func(s *OutSec) uint64 {
		b := uint64(bucket(s))
		if b == 1 {
			return b << 32
		}
		return b<<32 | uint64(s.Type)
	}
	var keys []uint64
	var count []int
	keyOf := make([]int32, len(ctx.Secs)) // index into keys; -1: empty
	live, last := 0, -1
	for i, s := range ctx.Secs {
		if s.empty() {
			s.Dead = true
			keyOf[i] = -1
			continue
		}
		k := key(s)
		if last < 0 || keys[last] != k {
			if last = slices.Index(keys, k); last < 0 {
				keys, count = append(keys, k), append(count, 0)
				last = len(keys) - 1
			}
		}
		keyOf[i] = int32(last)
		count[last]++
		live++
	}
	// Where each key's sections start, keys in ascending order.
	byKey := make([]int, len(keys))
	for j := range byKey {
		byKey[j] = j
	}
	slices.SortFunc(byKey, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	next := make([]int, len(keys))
	at := 0
	for _, j := range byKey {
		next[j], at = at, at+count[j]
	}
	// Past SHN_LORESERVE sections, symbols name their section through
	// .symtab_shndx, which nvlink places right after .symtab.
	ctx.fixed = 4
	if 4+live >= elf.SHNLoReserve {
		ctx.fixed = 5
	}
	ctx.Order = slices.Grow(ctx.Order[:0], live)[:live]
	for i, s := range ctx.Secs {
		if j := keyOf[i]; j >= 0 {
			s.Index = ctx.fixed + next[j]
			ctx.Order[next[j]] = s.ID
			next[j]++
		}
	}
}

// indexSymbols assigns .symtab indices: null, live locals, then globals.
func indexSymbols(ctx *Context) {
	idx := 1
	for _, id := range ctx.Locals {
		s := ctx.Syms[id]
		if s.dead || (s.Sec >= 0 && ctx.Secs[s.Sec].Dead) || ctx.dropsSym(s) {
			s.Index = -1
			continue
		}
		s.Index = idx
		idx++
	}
	ctx.firstGlobal = idx
	for _, id := range ctx.Globals {
		if s := ctx.Syms[id]; s.dead || ctx.dropsSym(s) {
			s.Index = -1
		} else {
			s.Index = idx
			idx++
		}
	}
	ctx.nsyms = idx
	encodeInfo(ctx)
	encodeCallgraph(ctx)
}

// dropsSym: the release writes no symbol for s, which the link keeps.
func (ctx *Context) dropsSym(s *OutSym) bool {
	return ctx.Rel.DropUnifiedTables && s.Sec < 0 && unifiedTable(s.Name)
}

// unifiedTable reports whether name is one of the unified function and
// data table symbols ptxas 12.x declares (weak, undefined) in every sm_90
// object: __UFT, __UDT and their _OFFSET, _CANONICAL and _END forms
// (Release.DropUnifiedTables).
func unifiedTable(name string) bool {
	switch name {
	case "__UFT", "__UDT", "__UFT_OFFSET", "__UDT_OFFSET", "__UFT_CANONICAL", "__UDT_CANONICAL", "__UFT_END", "__UDT_END":
		return true
	}
	return false
}

// lastSingleConstant is the output symbol of the __constant__ variable of
// the last object (in file order) that defines exactly one in
// .nv.constant3, of 4 bytes or of 12 to 64, -1 when none does. Its output
// offset is what nvlink 11.8 leaves in the null symbol's st_value when it
// names TEMP_MERGED_CONSTANTS, an artifact of the value deduplication it
// runs then (4-byte values, and 12 to 64 bytes, are compared; 8-byte ones
// otherwise, larger ones not at all). Observed on links of one to four
// objects in every order, constants of 4 to 72 bytes and of 16 and 32 KiB
// (crafted merged-constants-null-symbol); the symbol's value is read by no
// consumer of the file.
func lastSingleConstant(ctx *Context) int32 {
	last := int32(-1)
	for _, o := range ctx.Objs {
		only, n := int32(-1), 0
		for i := range o.F.Symbols {
			s := &o.F.Symbols[i]
			if !isDataSym(s) || s.Shndx == elf.SHNUndef || int(s.Shndx) >= len(o.F.Sections) || o.F.Sections[s.Shndx].Name != moduleConstants {
				continue
			}
			n++
			if i < len(o.SymMap) {
				only = o.SymMap[i]
			}
		}
		if n == 1 && only >= 0 {
			if z := ctx.Syms[only].Size; z == 4 || z >= 12 && z <= 64 {
				last = only
			}
		}
	}
	return last
}

// ctaidzEntries returns the entries (by symbol) that get an
// EIATTR_CTAIDZ_USED record: those without one that reach a function with
// one (sm_80 objects carry it for code reading blockIdx.z; nvlink 11.8
// raises it to the entries, at any depth, not to the functions between:
// crafted ctaidz-propagation). The root kernel gets it when any live
// function has it, reached or not (as its EXTERNS: sweep launch-other-tu
// with --kernels-used, libcudadevrt's 3D kernels).
func ctaidzEntries(ctx *Context, perFunc [][]infoRec, live []int32) map[int32]bool {
	has := map[int32]bool{}
	for _, t := range live {
		if f := ctx.Secs[t].InfoSym; f >= 0 && hasAttr(perFunc[t], elf.EIAttrCtaidzUsed) {
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
func mbarrierEntries(ctx *Context, perFunc [][]infoRec, live []int32) map[int32]uint16 {
	count := func(t int32) (uint16, bool) {
		if k := findAttr(perFunc[t], elf.EIAttrNumMbarriers); k >= 0 {
			return perFunc[t][k].a.Value, true
		}
		return 0, false
	}
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
