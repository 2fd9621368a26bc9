package main

// Heap tuning for links past lightBytes (see light.go for the others): huge
// pages for the Go heap, a pause of the collector while read loads what
// the advised range covers, a soft memory limit from the input size that
// alone runs the collector, and collections after chosen passes.

import (
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"

	"github.com/warplink/warplink/internal/hugemem"
)

// heapSizer sizes the Go heap for a link: early advice for huge pages
// before read (advise), with the collector paused through read, then a
// soft limit from the input size (size), and the collector restored
// (release).
type heapSizer struct {
	advised   int         // bytes advised before read (0: none)
	paused    atomic.Bool // advise turned the collector off; reading, size or release turn it back on
	gcPercent int         // the GOGC setting advise found
	// guarded reports that advise lowered the memory limit for the
	// pause; memLimit is the limit it found then.
	guarded  bool
	memLimit int64
	// limitOnly reports that size left the collector to the memory limit
	// alone (leaveToLimit: unless GOGC or GOMEMLIMIT is set); passDone
	// then collects after the passes collectAfter names.
	limitOnly bool
	// adviseHeap is hugemem.AdviseHeap and collect runtime.GC (tests
	// record the calls).
	adviseHeap func(n int, below bool) bool
	collect    func()
	// freeOS is debug.FreeOSMemory: a collection that also returns the
	// heap's free pages to the system (passDone, for a heap of small
	// pages).
	freeOS func()
	// noAdvice marks a small link, whose heap gets no advice before read
	// nor after it (adviceFrom).
	noAdvice bool
	// large marks a link of at least largeCollectFrom bytes of input:
	// passDone collects after dce too, and returns the free pages after
	// returnLargeAfter.
	large bool
	// middle marks a link from behindFinalizeFrom up to
	// largeCollectFrom bytes of input: passDone's collection after
	// finalize runs through behind.
	middle bool
	// behind runs a collection on another goroutine (go; tests run it
	// at once).
	behind func(collect func())
}

// newHeapSizer returns a heapSizer that advises with hugemem.AdviseHeap.
func newHeapSizer() *heapSizer {
	return &heapSizer{adviseHeap: hugemem.AdviseHeap, collect: runtime.GC, freeOS: debug.FreeOSMemory,
		behind: func(collect func()) { go collect() }}
}

// earlyAdvice is how much of the heap advise asks huge pages for before
// read: the limit size would set for inputs of inputGuess bytes each, and
// at least 64 MiB (more than the limit of links of up to about 10,000
// generated objects: 58 MB there). Advice costs no memory until touched;
// what it costs is one collection to hand the range back to the heap.
// Advising after read alone, and advising before and again after, were
// both slower (a second range, mapped on top of the first, counts against
// the limit: 2,000 objects then peaked 7 MB higher). A range short of the
// limit is topped up after read (laterAdvice), but that allocation may
// take memory the heap has used, which the runtime zeroes first: 4-78 ms
// for 40 MiB at 20,000 objects (0.5 s for 188 MiB at 50,000 where read
// ran uncollected), hence a range sized from the input count up front.
func earlyAdvice(inputs int) int {
	return int(min(max(limitFor(int64(inputs)*inputGuess), minEarlyAdvice), hugemem.MaxHeapAdvice))
}

// minEarlyAdvice is the least early advice (less gained nothing at 1,000
// objects: 24 MiB took as long, 16 MiB longer); inputGuess is the size
// the early advice assumes of each input: the corpus's median cubin is
// 3.4 KB, the benchmark's 4.4 KB (a larger input only makes the later
// advice larger).
const (
	minEarlyAdvice = 64 << 20
	inputGuess     = 4 << 10
)

// advise advises the heap's next earlyAdvice(inputs) bytes for huge pages
// (see hugemem.AdviseHeap), unless the inputs are to be read onto the
// heap, hands them back to the heap at once, with one collection of the
// nearly empty heap, and leaves the collector off while read loads the
// input that the range covers (reading): read's allocations land in the
// advised range, uncollected.
//
// Were the collector on while the range is made, the allocation would
// start a collection that finds it alive, the range would stay taken
// until the next one, after read, and read's allocations would go past
// it, to memory nobody advised (about a tenth slower at every size).
// Were it on through read, the heap, growing from nothing, would be
// collected over and over (nine collections instead of seven at 10,000
// objects), and 2,000 objects would gain nothing.
func (h *heapSizer) advise(plainMemory bool, inputs int) {
	if plainMemory {
		return
	}
	// (Off while the range is made, or the allocation starts a collection
	// that finds it alive.)
	h.gcPercent = debug.SetGCPercent(-1)
	h.paused.Store(true)
	n := earlyAdvice(inputs)
	if !h.adviseHeap(n, true) { // (the first advice: the heap's first memory too)
		h.release()
		return
	}
	h.advised = n
	h.collect()
	if os.Getenv("GOGC") != "" {
		// A GOGC the user set runs the collector through read too.
		h.release()
		return
	}
	// A guard for inputs whose read allocates far more than generated
	// objects (a quarter of their size: 11 MiB at 10,000): a memory limit
	// runs the collector before the heap outgrows the range by much (it
	// counts the range's free pages too), unless a lower one is set.
	// (Polling the heap's size instead needed runtime/metrics, whose
	// initialization costs every run 0.5-0.7 ms.)
	if guard, cur := int64(n)*5/4+8<<20, debug.SetMemoryLimit(-1); guard < cur {
		h.memLimit, h.guarded = debug.SetMemoryLimit(guard), true
	}
}

// reading turns the collector back on once read has loaded more input
// than the advised range covers (a later advice follows), so that read's
// heap does not outgrow the range uncollected. It may be called
// concurrently.
func (h *heapSizer) reading(loaded int64) {
	if h.paused.Load() && limitFor(loaded) > int64(h.advised) {
		h.release()
	}
}

// release turns the collector back on if advise turned it off, and puts
// back the memory limit advise found.
func (h *heapSizer) release() {
	if h.paused.CompareAndSwap(true, false) {
		debug.SetGCPercent(h.gcPercent)
		h.restoreLimit()
	}
}

// leaveToLimit ends the pause, if any, without turning GOGC's collector
// back on: from here only the memory limit runs the collector, and
// release has nothing left to do.
func (h *heapSizer) leaveToLimit() {
	h.paused.Store(false)
	debug.SetGCPercent(-1)
	h.limitOnly = true
}

// passDone collects the heap after each pass that collectAfter names,
// when size left the collector to the memory limit: until the heap
// reaches the limit it is otherwise never collected, so every byte the
// link allocates stays resident, garbage included (2,000 objects: 16 MB
// allocated, 5 MB of it live at the end). Each collection frees what the
// passes before it left behind (read's scratch buffers, the shards'
// batches, per-object tables, relocate's records), and the passes after
// it reuse that memory instead of growing the heap: after read, merge,
// relocate and finalize, a tenth to a fifth less peak RSS at 1,000 and
// 2,000 objects for 1-2 ms (a heap of 5-8 MB); collections after other
// passes saved less. At 10,000 objects these four collections and the
// limit take a tenth less CPU than GOGC's seven collections, in the same
// wall time, and 2 MB less peak RSS; at 100,000 objects the same time and
// 13-15 MB less.
//
// A heap that got no advice (noAdvice: small pages) also hands its free
// pages back to the system after the passes returnAfter names, which
// collects it as well: the passes after fault in only what they need
// (about 0.9 MB less at 1,000 and 2,000 objects, the same time). With
// huge pages that would split them. Not after finalize: write, the last
// pass, would fault back in what it needs, where a plain collection lets
// it reuse those pages (0.5-1.5 ms faster at 1,000 objects for 0.3 MB,
// still under nvlink's peak). From behindFinalizeFrom up to
// largeCollectFrom the collection after finalize runs beside the order
// pass (behind).
func (h *heapSizer) passDone(pass string) {
	switch {
	case !h.limitOnly:
	case h.noAdvice && slices.Contains(returnAfter, pass):
		h.freeOS()
	case h.large && pass == returnLargeAfter:
		h.freeOS()
	case h.middle && pass == "finalize" && h.behind != nil:
		h.behind(h.collect)
	case slices.Contains(collectAfter, pass), h.large && pass == "dce":
		h.collect()
	}
	if memTrace != nil {
		memTrace(pass)
	}
}

// memTrace reports memory after each pass (-tags memtrace).
var memTrace func(pass string)

// collectAfter names the passes after which passDone collects a small
// link's heap.
var collectAfter = []string{"read", "merge", "relocate", "finalize"}

// largeCollectFrom is the input size from which passDone also collects
// after dce: dce's call lists and live sets (about 35 MB at 100,000
// generated objects, 447 MB) are garbage once it ends, and relocate's
// tables then reuse their memory instead of growing the heap: about
// 20 MB less peak RSS there. Below it the collection costs more time than
// the memory it saves is worth (1,000 objects: no less peak).
const largeCollectFrom = 128 << 20

// behindFinalizeFrom is the input size from which, up to
// largeCollectFrom, passDone's collection after finalize runs on another
// goroutine (heapSizer.behind), its marking on the core the order pass,
// serial, leaves idle, while order goes on: 16 MiB, about 2,800
// generated objects. At 10,000 objects the link is about 2 ms faster
// (order 1.2 ms slower: write barriers, assists), its peak RSS the same;
// write still finds what finalize left free. Smaller links' peak is near
// nvlink's, where order's allocations would not reuse that memory; a
// large link's peak is at write's end.
const behindFinalizeFrom = 16 << 20

// returnLargeAfter is the pass after which passDone returns the free
// pages of a large link's heap (largeCollectFrom) to the system, which
// collects it as well. Read's scratch buffers (about 120 MB free after
// its collection at 100,000 generated objects) and resolve's candidate
// lists (55 MB) lie in pages among what stays live, which merge's larger
// allocations (record slabs, symbol maps, the section-name index) cannot
// take: it grew the heap 37 MB past them. Handed back, merge faults in
// fresh pages instead, and its end, the link's peak (the inputs' names
// go right after it: releaseNames), is 46 MB lower, in the same time.
const returnLargeAfter = "resolve"

// returnAfter names the passes after which passDone also returns the
// free pages of a small link's heap that got no advice (a subset of
// collectAfter).
var returnAfter = []string{"merge", "relocate"}

// restoreLimit puts back the memory limit advise found, if it lowered it
// for the pause. Not concurrently: from release's winner, or from size
// once read is over.
func (h *heapSizer) restoreLimit() {
	if h.guarded {
		debug.SetMemoryLimit(h.memLimit)
		h.guarded = false
	}
}

// size gives the Go heap a soft limit of 1.15 times the size of
// the cubins to link plus 8 MiB (16 MiB below smallHeapBelow), unless
// GOMEMLIMIT is set, and leaves the collector to it (and to passDone's
// collections) unless GOGC is set. The cubins,
// their parsed tables and the string tables live outside the Go heap
// (internal/hugemem); what the heap keeps at the end of a link of
// generated objects is about 0.9 times its input (10,000 objects: 39 MB
// for 43.5 MB; 100,000: 400 MB for 447 MB). With only GOGC's doubling the
// heap peaked near twice that; the limit makes the collector run again as
// the heap nears it, so that peak RSS is about the arena plus the limit.
// The room above what is live must grow with the input, or the collector
// runs ever more often: 1.0 times the input plus 14 MiB was as fast as
// 1.2 times plus 16 MiB at 10,000 objects (peak RSS 131 MB instead of
// 140) but took 0.8 s more at 100,000 (38 collections). A link that needs
// more than the limit still runs; the collector then works harder. The
// heap then grows into ranges advised for huge pages: the one advise
// gave, and as much more as the limit exceeds it (laterAdvice). Last, the
// pause advise made ends.
func (h *heapSizer) size(inputBytes int64, inputsOnHeap bool) {
	if inputsOnHeap {
		// WARPLINK_HUGEPAGES=0, or no mappings on this system: the
		// inputs and their tables are on the heap too.
		inputBytes *= 3
	}
	limit := limitFor(inputBytes)
	h.restoreLimit() // (read is over: the pause's guard goes)
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
		if os.Getenv("GOGC") == "" {
			// The heap ends near its limit anyway: let the limit alone
			// run the collector (and its scavenger), with passDone's
			// collections, which spares those of the heap's growth
			// from nothing (a tenth faster at 1,000 and 2,000 objects,
			// a tenth less CPU at 10,000; see passDone).
			h.leaveToLimit()
			h.large = inputBytes >= largeCollectFrom
			h.middle = inputBytes >= behindFinalizeFrom && !h.large
		}
	}
	if !inputsOnHeap && !h.noAdvice {
		// (A quarter faster at 10,000 and 100,000 objects, for up to
		// 1-2 MB more peak RSS.) The runtime places the allocation where
		// it finds room: usually past the early range, which the heap
		// fills by then, but it may reuse free pages of that range, and
		// then part of the heap's later growth goes unadvised (slower,
		// not wrong).
		if n := laterAdvice(limit, h.advised); n > 0 {
			h.adviseHeap(n, false)
		}
	}
	// (A pause still on here means the input did not outgrow the early
	// range, so there was no later advice to hand back.)
	h.release()
}

// limitFor is the heap's soft limit for inputBytes of cubins: 1.15 times
// them plus 8 MiB, 8 MiB more below smallHeapBelow. (There the limit
// counts the runtime's own memory and the heap's free pages not yet
// returned to the system, which leaves a small link's heap little room:
// without the 8 MiB a 1,000-object link's heap is collected seven times
// in 40 ms, and 1,000 and 2,000 objects take a quarter to a third
// longer, for 3 and
// 5 MB less peak RSS; 4,000 objects, above the threshold, would pay
// 4.5 MB for 10 %.)
func limitFor(inputBytes int64) int64 {
	limit := inputBytes*23/20 + 8<<20
	if inputBytes < smallHeapBelow {
		limit += 8 << 20
	}
	return limit
}

// laterAdvice is how much more of the heap to advise once the limit is
// known, when advised bytes were advised before: the rest of the limit,
// so that advised ranges never add up to more than it (0: none).
func laterAdvice(limit int64, advised int) int {
	return int(max(limit-int64(advised), 0))
}

// smallHeapBelow is the input size (of the cubins, as heapSizer.size
// counts it) below which the heap's limit leaves 8 MiB more room: 16 MiB,
// about 3,700 generated objects (limitFor).
const smallHeapBelow = 16 << 20

// A command line of more than largeArgs arguments is taken for a link of
// at least adviceFrom bytes (4,096 inputs of 3 KiB, less than the corpus's median
// cubin), advised before it is parsed. Below adviceFrom (estimated:
// inputEstimate) the Go heap gets no advice at all, neither before read
// nor after (heapSizer.noAdvice): its garbage then takes 4 KiB pages,
// not whole 2 MiB ones: 3-3.5 MB less peak RSS at 1,000 and 2,000
// objects for up to a tenth more time, which keeps them under nvlink
// 11.8's peak (advising after read would give back 1.8 and 2.5 MB of
// that). From 4,000 objects (17 MB) on the advice stays: there it is
// time. Below adviceFrom the arenas keep small pages too
// (Options.SmallPages) past the huge pages the link is sure to fill
// (Options.InputEstimate), and so up to smallPagesBelow (pagesFor): a
// last huge page mostly empty shows in a small link's figure (about
// 1.8 MB at 1,000 to 2,000 objects), and the huge pages up to the
// estimate spare 1,300 page faults at 1,000 objects.
const (
	largeArgs       = 4096
	adviceFrom      = 12 << 20
	smallPagesBelow = 24 << 20
)

// pagesFor decides, for a link of about est bytes of input
// (inputEstimate), whether the Go heap goes without advice (below
// adviceFrom, where the link may still advise it: mayAdvise) and whether
// the arenas keep small pages past the huge pages the link is sure to fill
// (below smallPagesBelow; Options.SmallPages). The arenas are not the
// heap: a link advised before its command line was parsed keeps small
// ones too (4,500 objects: 1.8 MB less, the same time). They are the
// only small pages merge gives its arenas.
// The arena holds about 1.09 times the cubins read (generated links of
// 1,000 to 4,000 objects), and inputEstimate was within 7 % of their size
// there: the huge pages up to est fill. A link whose arena holds less
// (host objects, whose host code is not kept) leaves at most one partly
// empty: advised memory never touched costs nothing.
//
// Small pages from adviceFrom to smallPagesBelow save 2 MB at 4,000
// objects on 16 cores (which brings warplink under nvlink 13.0's 62.6
// MB there, with procsFor's Ps) and 0.5 MB on two, in the same time. At
// 5,500 objects (24 MB) they no longer save memory and may cost time; at
// 10,000 they cost 3-10 ms.
func pagesFor(est int64, mayAdvise bool) (noAdvice, smallPages bool) {
	return mayAdvise && est < adviceFrom, est < smallPagesBelow
}
