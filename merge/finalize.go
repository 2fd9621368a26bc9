package merge

// finalize: build the sections the linker generates (.nv.info records,
// .nv.callgraph, .nv.prototype, .nv.rel.action), report undefined
// references, compute the attributes that depend on the whole call graph;
// the order pass (order.go) then fixes the final section order and symbol
// table indices.
//
// Inputs: merge and relocate results. Outputs: OutSec.Data of generated
// sections, every output section and symbol made.
// Work runs in parallel only where it reads the output without adding to
// it: every object is visited once, in parallel (gatherObjects: its
// .nv.info records translated, its call graph and prototype records
// mapped), and what that found folded in file order; what each function's
// section holds is prepared in parallel, the sections made in order. This pass runs with the Go heap at
// its limit, where allocations cost collections: tables are sized once.
// Once the call graph is collected, it frees a small link's decoded input
// tables (symbols, relocations, .nv.info records: releaseTables), which
// nothing reads after that.

import "github.com/warplink/warplink/elf"

func finalize(ctx *Context) error {
	// nvlink reports undefined references after the stack-size warnings
	// and the call graph dump, and still prints the -v summary: this
	// pass and the order pass run either way, and run stops before write.
	reportUndefined(ctx)
	// Removing unused kernels, nvlink 11.8 makes (and drops) a section
	// named TEMP_MERGED_CONSTANTS for the module's constants (crafted
	// merged-constants-name), and leaves a value in the null symbol
	// (lastSingleConstant reads the inputs' symbol tables: below).
	_, constants := ctx.secNamed(moduleConstants)
	mergedConstants := constants && !ctx.keep.EveryKernelUsed && ctx.usedFilter()
	// The inputs' .nv.info records translated, their call graph and
	// prototype records mapped, in one parallel visit of each object,
	// then folded in file order. The visit drops each object's tables
	// when done with it where releaseTables releases them and
	// lastSingleConstant does not read them.
	drop := ctx.tablesReleased() && !mergedConstants
	info := gatherObjects(ctx, drop)
	startPrepare(ctx) // (on the core the serial rest leaves idle)
	buildCallgraph(ctx, info)
	makeKernelBanks(ctx)
	addBoundNames(ctx)
	// gatherObjects is over: no pass reads the inputs' symbol tables,
	// relocations or .nv.info records after this but lastSingleConstant.
	if mergedConstants {
		if single := lastSingleConstant(ctx); single >= 0 {
			ctx.nullSymValue = ctx.Syms[single].Value
		}
	}
	releaseTables(ctx, drop)
	ctx.calls, ctx.callers = calleesByCaller(ctx.cgEdges, len(ctx.Syms), ctx.lateScratch)
	propagateBarriers(ctx)
	if ctx.hasExtern && !ctx.keep.ExternSharedAtOffset {
		if len(ctx.externOff) > 0 {
			// nvlink adds this name (no symbol has it) when code a
			// kernel runs uses extern __shared__ memory (not when
			// --kernels-used removed it: crafted extern-shared-unused).
			// (nvlink 12.5 does not: Release.NamesOfDropped.)
			if ctx.Rel.NamesOfDropped {
				ctx.Str.Add(externSharedInstance)
			}
		}
		// The .nv_debug.shared that extern __shared__ memory keeps has no
		// section symbol, even where an input's module-scope shared
		// variables brought one (testdata/crafted/extern-shared-module),
		// but under --preserve-relocs.
		if id, ok := ctx.secNamed(moduleShared); ok && ctx.Secs[id].SymID >= 0 && !ctx.keep.ExternSharedPastWindow {
			ctx.Syms[ctx.Secs[id].SymID].dead = true
		}
	}
	buildNvInfo(ctx, info)
	keyInfoSections(ctx)
	// The inputs' relocations and resolutions are not read after this
	// point (the arena holds most of them: this matters without one).
	// (releaseTables dropped the objects' own slices but for a dump.)
	ctx.Res, ctx.resNames, ctx.objArrays.resID = nil, 0, nil
	if !ctx.tablesReleased() {
		for _, o := range ctx.Objs {
			o.relSecs, o.resID = nil, nil
		}
	}
	if ctx.Opts.DumpCallgraph {
		dumpCallgraph(ctx)
	}
	if mergedConstants && ctx.Rel.MergedConstantsName {
		ctx.addSecName(tempMergedConstants, -1)
	}
	lateSharedSymbols(ctx)
	rel := ctx.newSection(".nv.rel.action", elf.SHTCudaRelAction, 0, 8, 8)
	ctx.setData(rel, ctx.Rel.RelAction)
	rel.Size = uint64(len(ctx.Rel.RelAction))
	rel.SymID = newSecSym(ctx, rel.Name, rel.ID, 0)
	toolNote(ctx)
	compatOnce(ctx)
	relayoutStrings(ctx)
	return nil
}

// releaseTablesBelow bounds the tables releaseTables frees: 4 MiB, about
// 6,600 generated objects (some 630 bytes of tables an object). Larger
// links' tables are reset instead, and reused for what finalize and write
// allocate after (lateAlloc): at 10,000 objects (6.3 MB of tables) the
// reuse spares finalize's and write's fresh memory its faults, about 2 ms
// of CPU, at the same peak RSS. Freed, they also cost the next process:
// this VM's kernel hands freed memory back to its host after a couple of
// seconds (free page reporting), and a link started then has to fault it
// in again from the host (100,000 objects, one link after another: 15 %
// slower at best in the benchmark; read, merge and write twice as slow in
// the link after one that had freed 100 MB midway).
const releaseTablesBelow = 4 << 20

// releaseTables frees what nothing reads once finalize has collected the
// call graph (and waited for objectInfo): the inputs' symbol tables,
// decoded relocations and .nv.info records (Context.tables; 4.2 MB at
// 4,000 objects, a sixth of the arena), up to releaseTablesBelow, and
// past it makes their memory the place of finalize's and write's later
// arena allocations (hugemem.Arena.Reset, lateAlloc: at 30,000 objects
// 10 MB of .nv.info contents and write's buffers that would otherwise
// come on top of 32 MB of tables). What finalize and write allocate after
// it comes instead of on top of it. Freed before buildNvInfo, whose
// records and the symbol indices grow the heap by 5 MB at 4,000 objects,
// this lowers the peak RSS there by 4 MB (to below nvlink's), at no cost
// in time; 1,000 and 2,000 objects change little. A small link's tables
// take small pages (Options.SmallPages): in huge pages, what it freed
// would leave one mostly empty before it (1,000 objects: 2 MB more). The
// symbol tables and relocations are dropped from the objects, so that a
// use after this fails at once (gatherObjects dropped them already,
// unless lastSingleConstant needed them); a dump (after any pass, or of
// the call graph, which names input symbols) shows them, so they stay
// for one.
func releaseTables(ctx *Context, dropped bool) {
	if !ctx.tablesReleased() {
		return
	}
	if !dropped {
		for _, o := range ctx.Objs {
			// (nvinfo went after its last use; the resolution IDs, read
			// last by gatherObjects, go in the same walk of the objects.)
			o.F.Symbols, o.relSecs, o.resID = nil, nil, nil
		}
	}
	if ctx.tables.Used() <= ctx.freeTablesBelow {
		ctx.tables.Free()
		return
	}
	ctx.tables.Reset()
	ctx.late = ctx.tables
}

// tablesReleased reports whether releaseTables releases the inputs'
// tables: not for a dump.
func (ctx *Context) tablesReleased() bool {
	return ctx.Opts.Dump == "" && !ctx.Opts.DumpCallgraph
}

// lateScratch is an elf.Alloc for finalize's pointer-free tables past
// releaseTables (per-symbol arrays, call lists): the tables' memory when
// it was reset for reuse, whose pages are resident already, else nil
// (make: what the collector frees goes back to the heap). At 100,000
// objects those tables are some 15 MB, whose first touch in fresh memory
// (the kernel clearing each page) took more time than their work.
func (ctx *Context) lateScratch(n int) []byte {
	if ctx.late != nil {
		return ctx.late.Alloc(n)
	}
	return nil
}

// lateAlloc is Arena.Alloc for what finalize and write place in an arena
// after releaseTables: from the tables' memory when it was reset for
// reuse, else from Context.mem.
func (ctx *Context) lateAlloc(n int) []byte {
	if ctx.late != nil {
		return ctx.late.Alloc(n)
	}
	return ctx.mem.Alloc(n)
}

// lateKeep is lateAlloc for what write reads (the generated .nv.info
// sections' contents, names and records): from the top of the reset
// tables' memory (hugemem.Arena.AllocTop), so that write can take again
// what finalize's scratch tables (lateScratch) took below it
// (rewindLate).
func (ctx *Context) lateKeep(n int) []byte {
	if ctx.late == nil {
		return ctx.mem.Alloc(n)
	}
	if b := ctx.late.AllocTop(n); b != nil || n <= 0 {
		return b
	}
	return make([]byte, n)
}

// lateKeepMapped is lateMapped for what write reads (lateKeep).
func (ctx *Context) lateKeepMapped(n int) []byte {
	if ctx.late == nil {
		return nil
	}
	return ctx.late.AllocTop(n)
}

// lateSecsMapped is lateKeepMapped for output section records that
// genSection clears one by one before any is read
// (hugemem.Arena.AllocTopUncleared).
func (ctx *Context) lateSecsMapped(n int) []byte {
	if ctx.late == nil {
		return nil
	}
	return ctx.late.AllocTopUncleared(n)
}

// rewindLate hands the reset tables' memory that finalize's scratch
// tables took back for write's tables (hugemem.Arena.Rewind: resident
// pages, at 100,000 objects about 20 MB, where write's section headers
// would otherwise grow the heap). Only write runs after it: order reads
// the scratch tables (the call lists) still.
func (ctx *Context) rewindLate() {
	if ctx.late != nil {
		ctx.late.Rewind()
	}
}

// lateResident reports whether n bytes of the late allocations
// (lateAlloc, lateMapped) would come from the part of the reset tables'
// memory that the inputs' tables had touched (hugemem.Arena.Resident):
// pages resident already. Write's tables go there first when they fit
// (at 100,000 objects finalize leaves about 5 MB of it: the run buffers
// and .symtab_shndx), before the heap's free pages, which lie in runs
// too short for a table of megabytes and leave it to fresh memory.
func (ctx *Context) lateResident(n int) bool {
	return ctx.late != nil && ctx.late.Resident(n)
}

// lateMapped is lateScratch for tables that may hold pointers (to what
// the heap keeps alive otherwise): mapped memory only, else nil (make).
func (ctx *Context) lateMapped(n int) []byte {
	if ctx.late != nil {
		return ctx.late.AllocMapped(n)
	}
	return nil
}
