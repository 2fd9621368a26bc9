package prefetch

import (
	"testing"
	"unsafe"
)

// The hints never fault and change nothing: empty, nil, unaligned and
// odd-sized ranges included.
func TestRangesLeaveMemoryAlone(t *testing.T) {
	b := make([]byte, 1000)
	for i := range b {
		b[i] = byte(i)
	}
	Range(nil, 100)
	Range(unsafe.Pointer(&b[0]), 0)
	Range(unsafe.Pointer(&b[3]), 997)
	Slice(b[:0])
	Slice(b)
	Slice([]uint64{1, 2, 3})
	Line(uintptr(unsafe.Pointer(&b[999])))
	Line(0)
	for i := range b {
		if b[i] != byte(i) {
			t.Fatalf("byte %d changed: %d", i, b[i])
		}
	}
}
