package main

import (
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/warplink/warplink/internal/imagetrim"
	"github.com/warplink/warplink/merge"
)

// A light link, of less than lightBytes of input (estimated: lightLink),
// is most links: a few objects, done in a few milliseconds, most of which
// is the process's start and end. It starts nothing it does not need:
//
//   - its inputs are read into the Go heap one system call at a time (no
//     io_uring, no huge-page mappings: the ring's set-up, a mapping's page
//     faults and a 2 MiB page zeroed cost more than they save on a few
//     files), but a file of lightMapFrom bytes or more is mapped
//     (Options.MapFrom): most often an archive, libcudadevrt.a (1 MB) in
//     every nvcc -dlink, of which the link reads a few pages, where a read
//     would copy all of it into memory faulted in first (a fifth of a
//     one-object nvcc-style link);
//   - the heap gets no advice and no collection: its garbage is a few
//     megabytes, and a memory limit runs the collector only if the link
//     allocates far more than its input suggests;
//   - its passes run on one thread (Options.Threads 1, unless
//     --warplink-threads says otherwise: merge then starts no goroutine):
//     on a few hundred files a second thread saves no time and costs
//     memory (its goroutines' stacks, its caches' spans); only read, which
//     waits on system calls, keeps one worker per CPU (Options.JITWorkers,
//     with which PTX is compiled);
//   - a serial link (see lightLink) runs on the main goroutine alone:
//     read too (Options.JITWorkers 1: PTX is compiled one input at a
//     time). The runtime keeps its Ps: with no goroutine to run, the
//     others stay asleep, where giving them up would cost a stop of the
//     world and the flush of their caches.
//
// lightBytes is about 450 generated objects: past it, the heap tuning and
// the ring pay (1,000 objects link a few milliseconds faster with them).
// serialBytes is about 60: past it, a second reader pays.
const (
	lightBytes   = 2 << 20
	serialBytes  = 256 << 10
	lightMapFrom = 64 << 10
	// lightWriteChunk bounds write's run buffer (merge.Options.WriteChunk)
	// for an output too large to be gathered at once (merge's
	// gatherBelow, 256 KiB; a smaller one goes out of its gathering
	// buffer, whatever the runs): a one-thread link writes each run as
	// it is filled, so a 64 KiB buffer holds what a 256 KiB one did, in
	// four times the system calls (100 objects: five writes of a
	// 281 KB output, 0.13-0.19 MB less peak RSS, in the same time).
	lightWriteChunk = 64 << 10
	lightSample     = 8
)

// lightLink estimates the size of o's inputs and reports whether that
// makes a light link, and a serial one: one whose inputs other than -l
// libraries add up to less than serialBytes. A library is an archive of
// which a link pulls the members it needs (libcudadevrt.a, which nvcc
// -dlink names, 1 MB, gives one cubin, most often dropped). The files are
// estimated from a sample (inputEstimate), the libraries, few, one by
// one: in a sample one of them would count for the inputs it stands for.
func lightLink(o *merge.Options) (est int64, light, serial bool) {
	files := *o
	files.Inputs = slices.DeleteFunc(slices.Clone(o.Inputs), isLibrary)
	// (A few inputs tell a light link: its stat calls are a few percent
	// of it. Near the threshold, or past it, the full sample decides.)
	if est = sampledEstimate(&files, fileSize, lightSample); est >= lightBytes/2 {
		est = inputEstimate(&files, fileSize)
	}
	serial = est < serialBytes
	for _, in := range o.Inputs {
		if !isLibrary(in) {
			continue
		}
		if path, ok := inputPath(o, in); ok {
			if n, ok := fileSize(path); ok {
				est += n
			}
		}
	}
	return est, est < lightBytes, serial
}

// isLibrary reports whether a command line's input is a -l library.
func isLibrary(in string) bool { return strings.HasPrefix(in, "-l") }

// light sets o up for a light link of about est bytes of input, serial or
// not (lightLink), and returns what puts the collector's settings back
// (run may be called again: tests). GOGC or GOMEMLIMIT, when set, rule the
// collector.
func light(o *merge.Options, est int64, serial bool) (restore func()) {
	o.PlainMemory, o.NoRing = true, true
	if o.MapFrom == 0 {
		o.MapFrom = lightMapFrom
	}
	if o.WriteChunk == 0 {
		o.WriteChunk = lightWriteChunk
	}
	if o.Threads == 0 {
		o.Threads = 1
		if serial {
			o.JITWorkers = 1
		}
	}
	if !serial {
		// The read pass's workers map back blocks of the pclntab (their
		// start, their stack's growth: internal/imagetrim), which no later
		// pass reads: they go again, while the heap is still smaller
		// than the link's peak.
		o.PassDone = func(pass string) {
			if pass == "read" {
				imagetrim.Release()
			}
		}
	}
	gcPercent, memLimit, tuned := 0, int64(0), false
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// (The inputs are on the heap too: they count three times, as
		// heapSizer.size counts them there.)
		gcPercent, memLimit, tuned = debug.SetGCPercent(-1), debug.SetMemoryLimit(limitFor(3*est)), true
	}
	return func() {
		if tuned {
			debug.SetGCPercent(gcPercent)
			debug.SetMemoryLimit(memLimit)
		}
	}
}
