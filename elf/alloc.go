package elf

import "unsafe"

// Alloc gives a decoder the memory of the tables it returns: n zeroed,
// 8-byte aligned bytes that stay valid while the result is used, or nil
// (as a nil Alloc) for make. The caller may take them from outside the Go
// heap, where the collector neither scans nor counts them (merge passes
// its arenas', internal/hugemem): the tables' strings and slices point only
// into the decoded bytes, which the caller keeps alive (File.Raw). elf
// itself maps nothing.
type Alloc func(n int) []byte

// SliceOf returns n zeroed Ts in memory from alloc, or from make when
// alloc is nil or returns nil. Memory the collector does not scan may
// hold only pointers kept alive elsewhere (merge's placed types, and
// internal/hugemem's Arena.AllocMapped, say which memory that is).
func SliceOf[T any](n int, alloc Alloc) []T {
	if alloc == nil || n == 0 {
		return make([]T, n)
	}
	var zero T
	b := alloc(n * int(unsafe.Sizeof(zero)))
	if b == nil {
		return make([]T, n)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
