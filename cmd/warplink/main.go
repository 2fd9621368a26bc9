// Command warplink is a parallel, drop-in replacement for NVIDIA's CUDA
// device linker nvlink. Invoked as "nvlink" (through a symlink) it prints
// its diagnostics under that name, so that build tools see nvlink.
//
//	warplink [nvlink options] <objects>   link, like nvlink
//	warplink demo [-o FILE]               link the embedded sample program
//	warplink cmp A B                      compare two cubins
//	warplink dump FILE                    print a readelf-like dump
package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/cli"
	"github.com/warplink/warplink/internal/cmpelf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/hugemem"
	"github.com/warplink/warplink/internal/jit"
	"github.com/warplink/warplink/merge"
)

func main() {
	files := atomicfile.NewRegistry()
	stop := files.HandleSignals(os.Interrupt, syscall.SIGTERM)
	stopProfile := startProfile()
	code := run(os.Args, os.Stdout, os.Stderr, files)
	stopProfile()
	stop()
	os.Exit(code)
}

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
	// alone (a small link: leaveToLimit); passDone then collects after the
	// passes collectAfter names.
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
}

// newHeapSizer returns a heapSizer that advises with hugemem.AdviseHeap.
func newHeapSizer() *heapSizer {
	return &heapSizer{adviseHeap: hugemem.AdviseHeap, collect: runtime.GC, freeOS: debug.FreeOSMemory}
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
// ran uncollected), hence a range sized from the input count up front
// (20,000 objects: 0.52 -> 0.43 s, fastest of three).
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
// Before, the allocation that makes the range started a collection that
// found it alive, and the range stayed taken until the next one, after
// read: read's allocations went past it, to memory nobody had advised
// (medians: 10,000 objects 213 -> 189 ms, 2,000 56.1 -> 49.9, 4,000
// 98.9 -> 92.3, 1,000 36.8 -> 33.3). With the collector left on through
// read instead, the heap, growing from nothing, was collected over and
// over (nine collections instead of seven at 10,000 objects), and 2,000
// objects gained nothing.
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

// passDone collects a small link's heap after each pass that collectAfter
// names, when size left the collector to the memory limit: such a heap is
// otherwise never collected, so every byte the link allocates stays
// resident, garbage included (2,000 objects: 16 MB allocated, 5 MB of it
// live at the end). Each collection frees what the passes before it left
// behind (read's scratch buffers, the shards' batches, per-object tables,
// relocate's records), and the passes after it reuse that memory instead
// of growing the heap. One collection after relocate (medians of 21
// alternating links on the 2-core machine of 2026-11-26): peak RSS 2,000
// objects 36.3 -> 30.4-32.2 MB, 1,000 objects 22.2 -> 20.1 MB, for about
// 1 ms (a heap of 5-8 MB); after dce alone, or after merge and finalize,
// saved less, and a second one after finalize nothing more. Collecting
// after read and merge too (16 alternating links, later that day):
// 2,000 objects 33.0-33.2 -> 29.8-31.1 MB, 1,000 objects 22.1-23.1 ->
// 20.7-21.1 MB, for 1-2 ms at 1,000 objects (fastest links 17.1 ->
// 19.2 ms); after resolve and relocate, or after resolve, dce and
// finalize, saved less. Larger links run GOGC's collections
// anyway (4,000 objects: no gain). After finalize too, once the heap and
// arena of a small link kept small pages (24 alternating links,
// 2026-11-27): 1,000 objects 15.3 -> 15.1 MiB, 2,000 24.3 -> 23.9, the
// same medians of time (36.5 / 36.6 ms, 57.9 / 58.1).
//
// A heap that got no advice (noAdvice: small pages) also hands its free
// pages back to the system after the passes returnAfter names, which
// collects it as well: the passes after fault in only what they need
// (16 alternating links, medians, 2026-11-27: 1,000 objects 15.1 ->
// 14.2 MiB, 32.6 / 32.7 ms; 2,000 objects 25.3 -> 24.4 MiB). With huge
// pages that would split them. Not after finalize: write, the last
// pass, then faulted back in what it needs, where a plain collection
// lets it reuse those pages (three sets of 30-40 alternating links at
// 1,000 objects, third session of 2026-11-27: 19.6 / 21.9 -> 19.1 /
// 20.9 ms, 21.4 / 28.8 -> 20.9 / 27.5 at best / median, for 14.9 ->
// 15.2 MB; nvlink 16.0-16.1).
func (h *heapSizer) passDone(pass string) {
	switch {
	case !h.limitOnly:
	case h.noAdvice && slices.Contains(returnAfter, pass):
		h.freeOS()
	case slices.Contains(collectAfter, pass):
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
// the cubins to link plus 8 MiB (16 MiB below smallLink), unless
// GOMEMLIMIT is set. The cubins,
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
// collector advise paused runs again under GOGC (small links: see below).
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
		if inputBytes < smallLink && os.Getenv("GOGC") == "" {
			// A small link's heap stays near its limit anyway: let the
			// limit alone run the collector (and its scavenger), which
			// spares the collections of the heap's growth from nothing
			// (2,000 objects: 76 -> 69 ms, 1,000: 50 -> 47; the same
			// peak RSS). Larger links need GOGC's collections: at
			// 100,000 objects the limit alone cost 0.6 s more.
			h.leaveToLimit()
		}
	}
	if !inputsOnHeap && !h.noAdvice {
		// (10,000 objects: 0.40 -> 0.30 s; 100,000: 6.0 -> 4.5 s; up to
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
// them plus 8 MiB, 8 MiB more below smallLink. (Below smallLink the limit
// counts the runtime's own memory and the heap's free pages not yet
// returned to the system, which left a small link's heap little room: at
// 1,000 objects it was collected seven times in 40 ms. 8 MiB more: 1,000
// objects 51 -> 36-38 ms, 2,000 76 -> 60 ms, for 3 and 5 MB more peak
// RSS; 4,000 objects, above the threshold, would pay 4.5 MB for 10 %.)
func limitFor(inputBytes int64) int64 {
	limit := inputBytes*23/20 + 8<<20
	if inputBytes < smallLink {
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

// smallLink is the input size (of the cubins, as heapSizer.size counts it)
// below which the heap's limit alone runs the collector: 16 MiB, about
// 3,700 generated objects (4,000 objects gained nothing).
const smallLink = 16 << 20

// tinyLink reports a link of at most tinyInputs inputs (which bounds the
// stat calls) that add up to at most tinyBytes. For it, huge pages cost
// more than they save: the heap's advice and the collection that hands it
// back (2.5-3 ms), and a 2 MiB page zeroed for the arena's few kilobytes.
// Generated links in the Go heap's own pages instead: 10 objects
// 14.8-17.8 -> 10.8 ms, 30 objects 14.3-16.3 -> 12.9-13.2, 100 objects
// (430 KB) the same, 300 objects 22 -> 29-30 (perf stat, 20 links).
// size is fileSize or a memo of it (sizeMemo).
func tinyLink(o *merge.Options, size func(path string) (int64, bool)) bool {
	if len(o.Inputs) > tinyInputs {
		return false
	}
	var total int64
	for _, in := range o.Inputs {
		path, ok := inputPath(o, in)
		if !ok {
			continue // (read skips it too)
		}
		n, ok := size(path)
		if !ok {
			return false // (read reports it)
		}
		if total += n; total > tinyBytes {
			return false
		}
	}
	return true
}

// tinyInputs and tinyBytes bound a tiny link (see tinyLink). A command
// line of more than largeArgs arguments is taken for a link of at least
// adviceFrom bytes (4,096 inputs of 3 KiB, less than the corpus's median
// cubin), advised before it is parsed. Below adviceFrom (estimated:
// inputEstimate) the Go heap gets no advice at all, neither before read
// nor after (heapSizer.noAdvice): its garbage then takes 4 KiB pages,
// not whole 2 MiB ones. On the 2-core VM (16 alternating links each,
// medians): 1,000 objects 20.3 -> 16.8 MiB and 29.1 -> 30.3 ms, 2,000
// objects 28.5 -> 25.5 MiB and 57.0 -> 62.5 ms (nvlink 11.8: 15.3 and
// 27.7 MiB); with the later advice kept, 18.6 and 28.0 MiB. From 4,000
// objects (17 MB) on the advice stays: there it is time. Below
// adviceFrom the arenas keep small pages too (Options.SmallPages) past
// the huge pages the link is sure to fill (Options.InputEstimate), and so
// up to smallPagesBelow (pagesFor): a last huge page mostly empty shows in
// a small link's figure. All in small pages (24 alternating links, MB of
// 10^6 bytes, medians): 1,000 objects 17.6 -> 15.8 MB, 27.6 -> 29.6 ms
// (nvlink 16.1 MB); 1,500 22.0 -> 20.1 MB, the same time (nvlink 22.7);
// 2,000 26.8 -> 25.1 MB, 53.4 -> 57.5 ms (nvlink 28.1). With those huge
// pages besides (2026-11-27, 30 and 16 alternating links): 1,000 objects
// the same peak RSS, 24.2 -> 23.5 ms (1,300 page faults fewer); 2,000
// objects 25.9 -> 24.5 MB against all huge pages, the same time.
const (
	tinyInputs      = 64
	tinyBytes       = 256 << 10
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
// ones too (4,500 objects, 16 alternating links, medians: 57.2 -> 55.4
// MB, the same time; nvlink 60.6). They are the only small pages merge
// gives its arenas (it kept the decoded tables' first 4 MiB small below
// 32 MiB of input as well until 2026-11-27: at 4,500 and 6,500 objects
// that no longer changed anything).
// The arena holds about 1.09 times the cubins read (generated links of
// 1,000 to 4,000 objects), and inputEstimate was within 7 % of their size
// there: the huge pages up to est fill. A link whose arena holds less
// (host objects, whose host code is not kept) leaves at most one partly
// empty: advised memory never touched costs nothing.
//
// Small pages from adviceFrom to smallPagesBelow (2026-11-27, 4,000
// objects, medians of alternating links): on the 16-core GPU machine with
// nvlink 13.0's corpus (21.1 MB of input) 65.6 -> 63.5 MB under 14 Ps and
// 63.6 -> 61.7 MB under 8 (12 links each; nvlink 13.0: 62.6 MB), the
// same time; on the 2-core VM (17.4 MB) 51.1 -> 50.6 MB, the same time
// (24 links each). At 5,500 objects (24 MB) they no longer saved memory
// and may cost time (95.8 -> 99.7 ms, 16 links each, a noisy spell);
// at 10,000 they cost 3-10 ms.
func pagesFor(est int64, mayAdvise bool) (noAdvice, smallPages bool) {
	return mayAdvise && est < adviceFrom, est < smallPagesBelow
}

// progName is the name diagnostics are printed under: "nvlink" when the
// binary was invoked as nvlink, else "warplink".
func progName(argv0 string) string {
	if base := filepath.Base(argv0); base == "nvlink" || strings.EqualFold(base, "nvlink.exe") {
		return "nvlink"
	}
	return "warplink"
}

// run is the whole program; it returns the exit status.
func run(argv []string, stdout, stderr io.Writer, files *atomicfile.Registry) int {
	prog := progName(argv[0])
	args := argv[1:]
	if prog == "warplink" && len(args) > 0 {
		switch args[0] {
		case "cmp", "dump":
			return cmpelf.Main(args, stdout, stderr)
		case "demo":
			return demo(args[1:], stdout, stderr)
		}
	}
	return link(args, stdout, stderr, prog, files)
}

// link runs an nvlink command line.
func link(args []string, stdout, stderr io.Writer, prog string, files *atomicfile.Registry) int {
	bag := &diag.Bag{}
	fatal := func(err error) int {
		bag.Fatalf([3]int{}, "%s", err)
		bag.Print(stderr, prog)
		return 1
	}
	// A command line long enough that the link cannot be small gets the
	// heap's advice before it is parsed, so that what parsing allocates
	// lands in huge pages too (10,000 objects: about 190 faults fewer).
	heap := newHeapSizer()
	defer heap.release()
	// WARPLINK_HUGEPAGES=0 reads the inputs into the Go heap instead, and
	// leaves the heap's pages as the runtime has them.
	plainMemory := os.Getenv("WARPLINK_HUGEPAGES") == "0"
	early := len(args) > largeArgs && !plainMemory
	if early {
		heap.advise(false, len(args))
	}
	cmd, err := cli.Parse(args, os.ReadFile, bag)
	if err != nil {
		return fatal(err)
	}
	switch {
	case cmd.Help:
		bag.Print(stderr, prog)
		cli.PrintHelp(stdout, prog)
		return 0
	case cmd.Version:
		bag.Print(stderr, prog)
		cli.PrintVersion(stdout, prog)
		return 0
	}
	if err := cmd.Check(); err != nil {
		return fatal(err)
	}
	bag.Print(stderr, prog)
	if cmd.ToolName != "" {
		prog = cmd.ToolName
	}
	if cmd.HostLinkerScript != "" {
		return hostLinkerScript(cmd, stdout, prog, files, bag, stderr)
	}
	cmd.Opts.Files = files
	jc := jit.New(jitOptions(cmd))
	if code, done := ltoStep(cmd, jc, files, stderr, prog); done {
		return code
	}
	cmd.Opts.JIT, cmd.Opts.JITWorkers = jc, runtime.NumCPU()
	// A tiny link's inputs go to the Go heap too, on one thread unless
	// told otherwise (waking a second costs more than it saves there: a
	// three-object link 10.3-10.6 -> 9.8-10.1 ms; 8.6-9.4 with
	// GOMAXPROCS=1 from the start, which a process cannot give itself).
	cmd.Opts.PlainMemory = plainMemory
	// A larger one gets one P per 2.5 MiB of input (procsFor), and below
	// adviceFrom leaves the Go heap's pages as the runtime has them.
	ownProcs := cmd.Opts.Threads == 0 && os.Getenv("GOMAXPROCS") == ""
	procs := runtime.GOMAXPROCS(0)
	// (A link of up to tinyInputs inputs that is not tiny would otherwise
	// stat them twice: tinyLink, then inputEstimate.)
	size := sizeMemo(fileSize)
	if tinyLink(&cmd.Opts, size) {
		cmd.Opts.PlainMemory = true
		if ownProcs {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		}
	} else if mayAdvise, mayCap := !early && !plainMemory, ownProcs && procs > minProcs; mayCap || !plainMemory {
		// (The estimate also decides the arenas' pages:
		// merge.Options.InputEstimate.)
		est := inputEstimate(&cmd.Opts, size)
		cmd.Opts.InputEstimate = est
		if p := procsFor(est, procs); mayCap && p < procs {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(p))
		}
		heap.noAdvice, cmd.Opts.SmallPages = pagesFor(est, mayAdvise)
	}
	// WARPLINK_IOURING=0 reads the inputs without io_uring.
	cmd.Opts.NoRing = os.Getenv("WARPLINK_IOURING") == "0"
	if !early {
		heap.advise(cmd.Opts.PlainMemory || heap.noAdvice, len(cmd.Opts.Inputs))
	}
	cmd.Opts.InputSize = heap.size
	cmd.Opts.Reading = heap.reading
	cmd.Opts.PassDone = heap.passDone
	return merge.Link(&cmd.Opts, stdout, stderr, prog)
}

// hostLinkerScript is the -ghls mode: write the script to -o or stdout.
func hostLinkerScript(cmd *cli.Command, stdout io.Writer, prog string, files *atomicfile.Registry, bag *diag.Bag, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		bag.Fatalf([3]int{}, format, a...)
		bag.Print(stderr, prog)
		return 1
	}
	if cmd.Opts.Output == "" {
		if err := cli.WriteHostLinkerScript(stdout, cmd.HostLinkerScript, cmd.HostCCBin, cmd.Opts.Machine64); err != nil {
			return fail("%s", err)
		}
		return 0
	}
	f, err := files.Create(cmd.Opts.Output)
	if err != nil {
		return fail("Could not open output file '%s'", cmd.Opts.Output)
	}
	defer f.Abort()
	if err := cli.WriteHostLinkerScript(f, cmd.HostLinkerScript, cmd.HostCCBin, cmd.Opts.Machine64); err != nil {
		return fail("%s", err)
	}
	if err := f.Commit(); err != nil {
		return fail("Could not write output file '%s'", cmd.Opts.Output)
	}
	return 0
}
