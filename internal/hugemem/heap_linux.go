package hugemem

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// AdviseHeap grows the Go heap by about n bytes that nothing has touched
// yet and advises them for transparent huge pages, so that the allocations
// that later land there fault 2 MiB at a time instead of 4 KiB (on the
// measurement machine a fault costs 10-15 µs either way: at 10,000 objects
// the heap's faults were a quarter of the link). The runtime maps its heap
// in steps and advises only its own metadata; memory it takes fresh from
// the system needs no zeroing, so the allocation below touches nothing,
// and the advice outlives it: the pages go back to the heap at the next
// collection, and the heap reuses them. It reports whether advice was
// given (never on 32-bit systems, nor for less than two huge pages).
//
// It gives no advice where the extra address space could fail the link:
// under a limit on the process's address space (ulimit -v), or with strict
// overcommit (vm.overcommit_memory 2), where untouched memory is charged
// too. (The runtime does not survive an allocation the system refuses.)
func AdviseHeap(n int) bool {
	if unsafe.Sizeof(uintptr(0)) < 8 || n < 2*hugePage || !roomy() {
		return false
	}
	n = min(n, MaxHeapAdvice)
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo, hi := (p+hugePage-1)&^(hugePage-1), (p+uintptr(n))&^(hugePage-1)
	ok := false
	if hi > lo {
		ok = syscall.Madvise(b[lo-p:hi-p], madvHugepage) == nil
	}
	runtime.KeepAlive(b)
	return ok
}

// roomy reports whether the address space may grow freely: no RLIMIT_AS
// and no strict overcommit.
func roomy() bool {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur != ^uint64(0) {
		return false
	}
	b, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err == nil && len(b) > 0 && b[0] != '2'
}
