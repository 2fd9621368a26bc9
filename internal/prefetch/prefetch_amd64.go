package prefetch

// Line hints that the cache line holding address p will be read soon.
//
//go:noescape
func Line(p uintptr)

// rangeLines prefetches the lines from lo up to hi (both line-aligned).
//
//go:noescape
func rangeLines(lo, hi uintptr)
