//go:build !amd64

package prefetch

// Line hints that the cache line holding address p will be read soon (a
// no-op on this architecture).
func Line(p uintptr) {}

func rangeLines(lo, hi uintptr) {}
