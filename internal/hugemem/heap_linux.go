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
// collection, and the heap reuses them. With below, the heap's memory
// below the range is advised and collapsed too (adviseBelow): for the
// first advice of a process, where that is the heap's first memory. It
// reports whether advice was given (never on 32-bit systems, nor for less
// than two huge pages).
//
// It gives no advice where the extra address space could fail the link:
// under a limit on the process's address space (ulimit -v), or with strict
// overcommit (vm.overcommit_memory 2), where untouched memory is charged
// too. (The runtime does not survive an allocation the system refuses.)
func AdviseHeap(n int, below bool) bool {
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
	if ok && below {
		adviseBelow(lo)
	}
	runtime.KeepAlive(b)
	return ok
}

// adviseBelow advises the heap's mapping that ends at lo, where the range
// AdviseHeap advised begins (the advice split the mapping there): the
// memory the heap had before. The runtime's page allocator hands out the
// lowest free addresses first, so once the range is back in the heap,
// allocations fill the rest of that older memory before they reach the
// range. Advice alone does not help there: a 2 MiB region that runtime
// initialization has touched at all keeps small pages, and the older
// memory rarely has a region it has not (the heap's base is randomized).
// So each region is also collapsed (MADV_COLLAPSE, Linux 6.1): its pages
// are copied into one huge page, and the rest of it costs no more faults.
// Where every 4 KiB fault costs 12-14 µs (a hypervisor that traps
// page-table updates), this spares a 1,000-object link 260-360 of its
// 770-870 faults, an eighth of its time.
// Only a mapping of at most maxBelow is taken. (Not below a range advised
// later: there lies memory the link has used and the runtime may have
// partly returned, which collapsing would fill again; at 20,000 objects
// that cost 10-25 ms, and up to 2 MB.)
func adviseBelow(lo uintptr) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	if start, ok := heapMappingBelow(maps, lo); ok && lo-start <= maxBelow {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, lo-start, madvHugepage)
		// One region at a time: a call over several stops collapsing
		// at a region with nothing in it yet.
		for r := (start + hugePage - 1) &^ (hugePage - 1); r < lo; r += hugePage {
			_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, r, hugePage, madvCollapse)
		}
	}
}

// maxBelow bounds the older memory adviseBelow advises: the runtime maps
// its first heap memory in 4 MiB chunks (2-6 MiB were seen below the range).
const maxBelow = 16 << 20

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
