package merge

import (
	"io"

	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/input"
	"github.com/warplink/warplink/internal/linkflags"
)

// Options is everything a link is told: the command line's options
// (linkflags: nvlink's and warplink's own, which internal/cli fills), the
// tuning knobs that never change the output, and what the caller hooks
// in. The passes only read it.
type Options struct {
	linkflags.Flags
	linkflags.Warplink
	Tuning
	Hooks

	// WeakRule selects weak-function selection: "" (nvlink 11.8: the first
	// definition stays) or "regcount" (nvlink 13.0 per the seeds: fewer
	// registers, then newer PTX, else the first).
	WeakRule string
	// RegisterModules, when not nil, are the objects
	// --register-link-binaries lists instead of the linked ones: an LTO
	// link lists every input with device code, IR ones included, in
	// input order (package jit).
	RegisterModules []RegisterModule
}

// Tuning are the knobs that decide how a link runs, never what it
// writes: cmd/warplink sets them from the inputs' size and the
// environment, tests to force a code path.
type Tuning struct {
	// WriteChunk is the size in bytes of the runs the write pass
	// assembles the file in (0: by the file's size, see emitChunk); it
	// does not change the output (tests make it tiny, so that
	// every run reuses a buffer).
	WriteChunk int
	// StrQueueMin is the least input, in sections and symbols, for which
	// merge makes its string-table additions on another goroutine
	// (strQueue; 0: queueMin, about 300 generated objects; negative:
	// never); it does not change the output either (the corpus tests
	// force the queue on for every host-object link).
	StrQueueMin int
	// MapFrom is the size from which read maps an input file instead of
	// reading it (input.Memory.MapFrom; 0: mapInputsFrom, 1 MiB;
	// negative: never); it does not change the output either (tests map
	// every input).
	MapFrom int64
	// MaxOutputSize bounds the output file's size in bytes (0: 1 TiB,
	// past any real link's: 100,000 generated objects write 286 MB); a
	// link that would write more fails before writing anything. Only
	// malformed inputs can come near the default; tests set less.
	MaxOutputSize uint64
	// CheckNames has merge check every name it moves into the output's
	// string tables before it frees the inputs' (releaseNames; tests): a
	// name not at its offset fails the link with an error (errCheck).
	CheckNames bool
	// PlainMemory keeps the input files in Go-allocated buffers instead of
	// huge-page mappings (internal/hugemem); cmd/warplink sets it when
	// WARPLINK_HUGEPAGES=0, and for a light link (inputs of less than 2
	// MiB together). It does not change the output.
	PlainMemory bool
	// SmallPages keeps the arenas' mappings in small pages (no huge-page
	// advice); cmd/warplink sets it for a small link (below its
	// smallPagesBelow: pagesFor), whose last huge page would be mostly
	// empty. It does not change the output.
	SmallPages bool
	// InputEstimate is about how many bytes the inputs take (0: unknown;
	// cmd/warplink estimates it from a sample of them): with SmallPages,
	// the arena still asks huge pages for that many bytes, which the link
	// is sure to fill (hugemem.Arena.HugeTo). It does not change the
	// output.
	InputEstimate int64
	// NoRing reads the inputs one system call at a time, without io_uring
	// (input.Ring); set by WARPLINK_IOURING=0, and for a light link. It
	// does not change the output.
	NoRing bool
	// JITWorkers is the least number of goroutines read loads inputs on
	// (0: none), so that that many PTX compiles (child processes, which
	// need no P) may run at once even where a small link's GOMAXPROCS is
	// 1; cmd/warplink gives the CPU count. It does not change the output.
	JITWorkers int
}

// Hooks are the services and callbacks the caller hands a link.
type Hooks struct {
	// CheckRelease, when set, refuses what the command line holds that
	// the release chosen by the inputs does not accept: it returns that
	// release's fatal message ("Unknown option 'Xnvvm'") or "" (the CLI
	// parsed the command line before the release was known; see
	// internal/cli/release.go).
	CheckRelease func(version int) string
	// Files, when set, creates the output through a registry that removes
	// unfinished outputs on SIGINT/SIGTERM (cmd/warplink sets it).
	Files *atomicfile.Registry
	// DumpTo receives the dump (nil = standard error).
	DumpTo io.Writer
	// InputSize, when set, is told the total size of the cubins to link
	// once read has loaded them, and whether they are on the Go heap
	// (cmd/warplink sizes the heap's soft limit from it).
	InputSize func(bytes int64, onHeap bool)
	// Reading, when set, is told the total size of the cubins read so far
	// after each batch of inputs, from read's goroutines (concurrently,
	// so not necessarily in increasing order); cmd/warplink turns the
	// collector back on once read has loaded more than the heap's early
	// advised range covers.
	Reading func(bytes int64)
	// PassDone, when set, is told the name of each pass as it ends
	// (the driver's names: "read" ... "write"), from the driver's
	// goroutine; cmd/warplink collects a small link's heap once after
	// relocate (heapSizer.passDone).
	PassDone func(pass string)
	// JIT, when set, compiles the PTX of inputs without code for the
	// target (input.Memory.JIT; cmd/warplink sets package jit's).
	JIT input.Compiler
	// TimeRows, when set, gives the --time rows of the work done before
	// or beside the link (nvlink's ptx and lto.* phases: package jit),
	// written before the link's own passes.
	TimeRows func() []string
}
