package merge

import (
	"runtime"
	"runtime/debug"
	"unsafe"
)

// heapRoom reports whether a table of n bytes that would go to an arena
// (write's section headers and symbol table) had better come from the Go
// heap: its free pages hold twice that, resident already (the garbage of
// the passes before, which the heap of a large link, far below its limit,
// keeps: at 100,000 objects some 45 MB by write, though in runs too
// short for a table of megabytes, so that it often takes fresh pages),
// and the heap stays under three quarters of its limit with it, so that
// it costs no collection. Write asks it only where the reset tables'
// memory has no resident room (lateResident). A heap near its limit
// (10,000 objects) has no such room: its tables stay in the arena.
func heapRoom(n int) bool {
	if n < heapRoomFrom {
		return false
	}
	// ReadMemStats, not runtime/metrics: that package's initialization
	// (95 allocations, 0.1 ms) would run in every process, small links too.
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	free, used, limit := m.HeapIdle-m.HeapReleased, m.HeapAlloc, debug.SetMemoryLimit(-1)
	return free >= 2*uint64(n) && limit > 0 && used+uint64(n) <= uint64(limit)/4*3
}

// heapRoomFrom is the least table heapRoom considers: a smaller one saves
// little, and the first read of the runtime's metrics costs a small link
// some 35 µs (2 % of a one-object link).
const heapRoomFrom = 1 << 20

// shdrBytes is the size of a section header table entry (write's shdr).
const shdrBytes = int(unsafe.Sizeof(shdr{}))
