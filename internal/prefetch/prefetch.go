// Package prefetch asks the processor to bring memory into its caches
// ahead of use, without waiting for it (a hint: it never faults, and does
// nothing where the architecture has no such instruction here).
//
// Why: merge's serial walk reads each object's tables once, in file order,
// and every object's first lines miss the caches; a plain load issued
// ahead would stall the walk until the line came, where a prefetch lets the
// walk go on meanwhile.
package prefetch

import "unsafe"

// lineSize is the cache line size the ranges are stepped by.
const lineSize = 64

// Range hints that the n bytes at p will be read soon.
func Range(p unsafe.Pointer, n uintptr) {
	if p == nil || n == 0 {
		return
	}
	rangeLines(uintptr(p)&^(lineSize-1), (uintptr(p)+n+lineSize-1)&^(lineSize-1))
}

// Slice hints that s's elements will be read soon.
func Slice[T any](s []T) {
	if len(s) > 0 {
		var z T
		Range(unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s))*unsafe.Sizeof(z))
	}
}
