//go:build !linux

package hugemem

// AdviseHeap does nothing where there are no transparent huge pages.
func AdviseHeap(n int, below bool) bool { return false }
