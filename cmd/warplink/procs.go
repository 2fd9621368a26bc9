package main

import (
	"os"
	"strings"

	"github.com/warplink/warplink/internal/input"
	"github.com/warplink/warplink/merge"
)

// procsFor is how many Ps (GOMAXPROCS) a link of about est bytes of
// input gets out of procs: one per bytesPerProc of input, at least
// minProcs, at most procs. A small link on many cores otherwise wakes
// them all for little work, and each P the allocator hands pages to
// touches huge pages of its own: on the 16-core GPU machine (nvlink
// 13.0's corpus, 5 links each, peak RSS / wall) 1,000 objects (5.3 MB)
// took 26.7-28.6 MB / 28.6-32.4 ms under 16 Ps against 21.2-23.1 MB /
// 25.9-29.8 ms under 4, and 2,000 objects (10.4 MB) 38.8-43.7 MB /
// 52.7-83.1 ms under 16 against 35.6-37.2 MB / 49.4-72.1 ms under 8.
// Then, seven links each way (medians): 1,000 objects 23.0 MB / 27.6 ms
// against 27.0 / 30.2 under 16, 2,000 36.9 / 47.0 against 41.1 / 48.0,
// 4,000 (14 Ps) 65.8 / 88.3 against 66.2 / 91.5; the same bytes.
// One P per 2.5 MiB rather than 1.5 (the arenas in small pages below
// smallPagesBelow, 12 alternating links each, medians): 4,000 objects
// (9 Ps against 14) 61.7 MB / 79.2 ms against 63.5 / 82.7 (nvlink 13.0:
// 62.6 MB); 1,000 (3 against 4) 17.2 / 28.7 against 17.3 / 27.6; 2,000
// (5 against 7) 28.7 / 49.8 against 29.2 / 51.5; 10,000 all 16 either
// way. (3 MiB: 4,000 objects the same memory, 1,000 objects 30.9 ms.)
// est is inputEstimate's.
func procsFor(est int64, procs int) int {
	if procs <= minProcs {
		return procs
	}
	want := int((est + bytesPerProc - 1) / bytesPerProc)
	return min(max(want, minProcs), procs)
}

// inputEstimate is the size of o's inputs in bytes, estimated from at
// most procsSample of them spread over the command line (stat calls cost
// 2-3 µs each: all of 100,000 inputs would be 0.2-0.3 s). An input that
// cannot be found counts as nothing (read reports it).
func inputEstimate(o *merge.Options, size func(path string) (int64, bool)) int64 {
	return sampledEstimate(o, size, procsSample)
}

// sampledEstimate is inputEstimate from at most samples inputs.
func sampledEstimate(o *merge.Options, size func(path string) (int64, bool), samples int) int64 {
	n := len(o.Inputs)
	if n == 0 {
		return 0
	}
	step := (n + samples - 1) / samples
	var sum int64
	var seen int
	for i := 0; i < n; i += step {
		seen++
		if path, ok := inputPath(o, o.Inputs[i]); ok {
			if s, ok := size(path); ok {
				sum += s
			}
		}
	}
	return sum * int64(n) / int64(seen)
}

// bytesPerProc, minProcs and procsSample: see procsFor.
const (
	bytesPerProc = 5 << 19 // 2.5 MiB
	minProcs     = 2
	procsSample  = 64
)

// inputPath is the file input in names: itself, or for -lNAME the
// library read would find in o.LibDirs (false when there is none: read
// skips it).
func inputPath(o *merge.Options, in string) (string, bool) {
	if name, ok := strings.CutPrefix(in, "-l"); ok {
		return input.FindLibrary(name, o.LibDirs)
	}
	return in, true
}

// fileSize is os.Stat's size of path.
func fileSize(path string) (int64, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	return st.Size(), true
}
