package merge

import (
	"io"

	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/input"
)

// Options is everything the command line decides about a link. The CLI in
// cmd/warplink fills it; the passes only read it.
type Options struct {
	Arch      string   // target, e.g. "sm_90" (from -arch)
	Output    string   // -o; "" means nvlink's default "a.out"
	Inputs    []string // input paths and "-l<name>" entries, in command-line order
	LibDirs   []string // -L directories, in order ($LIBRARY_PATH is not consulted)
	Machine64 bool     // -m64 (the default)
	// ToolOptions are the options as nvlink 13.0 records them in the
	// note of its own it puts first in .note.nv.tkinfo ("-arch sm_90 -L
	// <dir> "; internal/cli renders them: Release.ToolNote).
	ToolOptions              string
	CPUArch                  string   // -cpu-arch
	Debug                    bool     // -g
	NoWarn                   bool     // -w
	Werror                   bool     // -Werror
	ReportArch               bool     // -report-arch: every message ends " (target: <arch>)"
	Verbose                  bool     // -v
	PreserveRelocs           bool     // --preserve-relocs
	SuppressStackSizeWarning bool     // --suppress-stack-size-warning
	SuppressArchWarning      bool     // --suppress-arch-warning
	DumpCallgraph            bool     // --dump-callgraph
	KernelsUsed              []string // --kernels-used
	VariablesUsed            []string // --variables-used
	IgnoreHostInfo           bool     // --ignore-host-info
	UseHostInfo              bool     // --use-host-info
	KeepSystemLibraries      bool     // --keep-system-libraries
	AllowUndefinedGlobals    bool     // --allow-undefined-globals
	RegisterLinkBinaries     string   // --register-link-binaries FILE
	Time                     string   // --time FILE ("-" for stdout): CSV per pass
	// NvlinkVersion names the nvlink release to link as ("12.5";
	// --nvlink-version or WARPLINK_NVLINK_VERSION); "" = the release of
	// the toolkit the newest input was built with (merge/release.go).
	NvlinkVersion string
	// CheckRelease, when set, refuses what the command line holds that
	// the release chosen by the inputs does not accept: it returns that
	// release's fatal message ("Unknown option 'Xnvvm'") or "" (the CLI
	// parsed the command line before the release was known; see
	// internal/cli/release.go).
	CheckRelease func(version int) string

	// Threads bounds parallelism (0 = GOMAXPROCS); Shards is the number of
	// symbol shard owners (0 = default). Neither changes the output.
	Threads int
	Shards  int
	// WriteChunk is the size in bytes of the runs the write pass
	// assembles the file in (0: by the file's size, see emitChunk); it
	// does not change the output either (tests make it tiny, so that
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
	// WeakRule selects weak-function selection: "" (nvlink 11.8: the first
	// definition stays) or "regcount" (nvlink 13.0 per the seeds: fewer
	// registers, then newer PTX, else the first).
	WeakRule string
	// Files, when set, creates the output through a registry that removes
	// unfinished outputs on SIGINT/SIGTERM (cmd/warplink sets it).
	Files *atomicfile.Registry
	// Dump names a pass after which to print the link state ("" = none):
	// the sections and symbols built so far, or the output file after write.
	Dump string
	// DumpTo receives the dump (nil = standard error).
	DumpTo io.Writer
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
	// JITWorkers is the least number of goroutines read loads inputs on
	// (0: none), so that that many PTX compiles (child processes, which
	// need no P) may run at once even where a small link's GOMAXPROCS is
	// 1; cmd/warplink gives the CPU count. It does not change the output.
	JITWorkers int
	// RegisterModules, when not nil, are the objects
	// --register-link-binaries lists instead of the linked ones: an LTO
	// link lists every input with device code, IR ones included, in
	// input order (package jit).
	RegisterModules []RegisterModule
	// TimeRows, when set, gives the --time rows of the work done before
	// or beside the link (nvlink's ptx and lto.* phases: package jit),
	// written before the link's own passes.
	TimeRows func() []string
}
