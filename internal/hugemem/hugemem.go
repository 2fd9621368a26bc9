// Package hugemem hands out pointer-free byte buffers carved from large
// anonymous mappings that the kernel may back with transparent huge pages.
//
// Why: on the machines warplink is measured on, the first touch of every
// 4 KiB page of fresh memory costs some 10 to 15 µs of kernel time, and a
// link touches its whole input once more than it needs to: reading 10,000
// cubins into Go-allocated buffers spent about as long in page faults as in
// the reads themselves. One 2 MiB page faults once for 512 of those.
//
// The buffers live outside the Go heap: they must hold no Go pointers, the
// collector does not scan or count them, and they stay valid until Free,
// which unmaps them all at once. Where mappings are unavailable (or when
// disabled), Alloc falls back to make.
package hugemem

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// chunkSize is the size of one mapping; a request larger than that gets a
// mapping of its own.
const chunkSize = 64 << 20

// MaxHeapAdvice bounds what AdviseHeap asks the heap to grow by at once:
// 4 GiB (1 GiB where int has 32 bits, where AdviseHeap refuses anyway).
const MaxHeapAdvice = 1 << 30 << (^uint(0) >> 63 * 2)

// AllSmall, as an Arena's SmallFirst, keeps its whole first mapping in
// small pages, however large.
const AllSmall = int(^uint(0) >> 1)

// hugePage is the huge page size chunks are rounded to.
const hugePage = 2 << 20

// Arena is a bump allocator over mappings; safe for concurrent use. The
// zero Arena is ready to use; a nil *Arena allocates with make.
type Arena struct {
	// SmallFirst is how many bytes at the start of the first mapping keep
	// small pages (set before the first allocation): an arena that often
	// holds a few megabytes, freed early, would otherwise hold a huge page
	// mostly empty.
	SmallFirst int // (AllSmall: every byte of it)
	// HugeTo, when positive, ends the huge-page advice of the first
	// mapping: past its first HugeTo bytes, rounded down to whole huge
	// pages, it keeps small pages too (set before the first allocation).
	// An arena sure to fill about HugeTo bytes takes the huge pages those
	// fill (512 faults fewer each) without a last one mostly empty.
	HugeTo int

	mu     sync.Mutex
	used   int      // bytes handed out from mappings (see Used)
	chunks [][]byte // every mapping, for Free
	cur    []byte   // the unused tail of the mapping allocations come from
	// at is the index in chunks of the mapping cur lies in, pos where in
	// it cur starts, and reach, by mapping, how far into it the arena has
	// ever handed out bytes (before a Reset too): the part its users have
	// touched (Resident).
	at, pos int
	reach   []int
	// reset: Reset was called. top is where AllocTop's allocations in
	// the first mapping begin since, and topEnd where they end (0: none);
	// pinned reports that one of them could not go there (Rewind then
	// keeps everything).
	reset       bool
	top, topEnd int
	pinned      bool
	// spare are the mappings Reset handed back, in mapping order, for
	// allocations to take before mapping more; reused reports that cur
	// lies in one of them, whose bytes Alloc clears before handing out.
	spare  [][]byte
	reused bool
	plain  bool   // mappings failed once: use make from then on
	zeros  []byte // the read-only mapping Zeros hands out (nil: none yet)
	noZero bool   // that mapping failed: Zeros returns nil from then on
}

// ZerosMax is the longest slice Zeros hands out.
const ZerosMax = 1 << 20

// Alloc returns n zeroed bytes (len and cap n) that stay valid until Free:
// from a mapping, or from the Go heap when there is none (a nil Arena, no
// mappings on this system, or a mapping that failed). Only for data without
// Go pointers; see AllocMapped.
func (a *Arena) Alloc(n int) []byte {
	if n <= 0 {
		return nil
	}
	if b := a.AllocMapped(n); b != nil {
		return b
	}
	return make([]byte, n)
}

// AllocMapped is Alloc from a mapping only: nil when there is none. Memory
// a caller will cast to a type holding pointers must come from here, never
// from the heap fallback: the collector would take a []byte for pointer-
// free and not see those pointers. (What they point to must be kept alive
// from the heap by other references: the collector does not scan mappings
// either.)
func (a *Arena) AllocMapped(n int) []byte {
	if n <= 0 || a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.plain {
		return nil
	}
	step := (n + 7) &^ 7 // keep every buffer 8-byte aligned
	if len(a.cur) < step && a.at == 0 && a.topEnd > 0 && a.pos <= a.top && a.topEnd+step <= len(a.chunks[0]) {
		// (Below AllocTop's allocations there is no room: the first
		// mapping past them, before another.)
		a.cur, a.pos, a.reused = a.chunks[0][a.topEnd:], a.topEnd, true
	}
	for len(a.cur) < step && len(a.spare) > 0 {
		a.at, a.pos = len(a.chunks)-len(a.spare), 0
		a.cur, a.spare, a.reused = a.spare[0], a.spare[1:], true
	}
	if len(a.cur) < step {
		size := chunkSize
		if step > size {
			size = (step + hugePage - 1) &^ (hugePage - 1)
		}
		small, huge := 0, size
		if len(a.chunks) == 0 {
			small = a.SmallFirst
			if a.HugeTo > 0 {
				huge = min(a.HugeTo&^(hugePage-1), size)
			}
		}
		m, ok := mapAnon(size, small, huge)
		if !ok {
			a.plain = true
			return nil
		}
		a.chunks, a.reach = append(a.chunks, m), append(a.reach, 0)
		a.cur, a.reused, a.at, a.pos = m, false, len(a.chunks)-1, 0
	}
	b := a.cur[:n:n]
	a.cur = a.cur[step:]
	a.used += step
	a.pos += step
	a.reach[a.at] = max(a.reach[a.at], a.pos)
	if a.reused {
		clear(b)
	}
	return b
}

// Reset makes every byte the arena has handed out free for reuse without
// unmapping it: allocations after it take the same mappings again from
// the start (cleared as they are handed out, except what
// AllocTopUncleared hands out) before mapping more. Those pages are
// resident already, so what is allocated after Reset adds nothing to the
// resident set up to the size of what was freed, and costs no page
// faults; Free instead hands them to the system, which on a VM may hand
// them to its host and fault them back in slowly later. As after Free,
// nothing handed out before may be used afterwards.
func (a *Arena) Reset() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.spare = append(a.spare[:0], a.chunks...)
	a.cur, a.used, a.pos, a.reset, a.top, a.topEnd, a.pinned = nil, 0, 0, true, 0, 0, false
}

// AllocTop is AllocMapped for an allocation that outlives those Rewind
// hands back: after Reset, it comes from the top of the part of the
// first mapping the arena had reached (Resident memory), below what
// AllocTop took before, while AllocMapped's allocations come from its
// bottom; where they would meet, or once those have gone past the first
// mapping, it is AllocMapped's, and Rewind then keeps everything. Nil
// where AllocMapped is nil.
func (a *Arena) AllocTop(n int) []byte { return a.allocTop(n, true) }

// AllocTopUncleared is AllocTop for a caller that writes every byte
// before it reads any: from the top, the memory comes as the arena had
// it, not cleared (for a caller that clears record by record, on every
// thread, rather than all at once here).
func (a *Arena) AllocTopUncleared(n int) []byte { return a.allocTop(n, false) }

func (a *Arena) allocTop(n int, clearIt bool) []byte {
	if n <= 0 || a == nil {
		return nil
	}
	a.mu.Lock()
	if a.reset && !a.pinned && !a.plain && len(a.chunks) > 0 {
		if len(a.spare) == len(a.chunks) { // (nothing taken since Reset)
			a.cur, a.spare, a.at, a.pos, a.reused = a.chunks[0], a.spare[1:], 0, 0, true
		}
		if a.topEnd == 0 {
			a.top = a.reach[0] &^ 7
			a.topEnd = a.top
		}
		if step := (n + 7) &^ 7; a.at == 0 && a.pos+step <= a.top {
			a.top -= step
			b := a.chunks[0][a.top : a.top+n : a.top+n]
			a.cur = a.chunks[0][a.pos:a.top:a.top]
			a.used += step
			a.mu.Unlock()
			if clearIt {
				clear(b)
			}
			return b
		}
		a.pinned = true
	}
	a.mu.Unlock()
	return a.AllocMapped(n)
}

// Rewind makes what Alloc and AllocMapped handed out since Reset free
// for reuse, keeping what AllocTop did: allocations after it take the
// first mapping from its start up to AllocTop's, then past them, then
// the other mappings (cleared as they are handed out, except what
// AllocTopUncleared hands out). It does nothing before Reset, nor where
// an AllocTop allocation could not take the top (AllocTop). As after
// Reset, nothing Alloc or AllocMapped handed out before may be used
// afterwards.
func (a *Arena) Rewind() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.reset || a.pinned || len(a.chunks) == 0 {
		return
	}
	end := a.top
	if a.topEnd == 0 {
		end = len(a.chunks[0])
	}
	a.cur, a.at, a.pos, a.reused = a.chunks[0][:end:end], 0, 0, true
	a.spare = append(a.spare[:0], a.chunks[1:]...)
	a.used = len(a.chunks[0]) - end
}

// Resident reports whether an allocation of n bytes made now would lie
// in memory the arena has handed out before (after Reset, the part of
// its mappings its earlier users reached): memory whose pages those
// users' writes made resident, so that the allocation adds nothing to
// the process's resident set and takes no page faults. It is false where
// the allocation would map more, reach past that part, or come from the
// heap. A caller choosing between the arena and other memory that is
// resident already asks first.
func (a *Arena) Resident(n int) bool {
	if n <= 0 || a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.plain {
		return false
	}
	step := (n + 7) &^ 7
	if len(a.cur) >= step {
		return a.pos+step <= a.reach[a.at]
	}
	for k, m := range a.spare {
		if len(m) >= step {
			return step <= a.reach[len(a.chunks)-len(a.spare)+k]
		}
	}
	return false
}

// Used reports how many bytes the arena's mappings have handed out (each
// buffer rounded up to 8 bytes), until Free.
func (a *Arena) Used() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// Zeros returns n zero bytes (len and cap n) that must never be written:
// the start of one read-only mapping that every call shares, valid until
// Free. Reading them maps the kernel's zero page, so they cost no memory
// however many sections use them; a write faults, loudly, instead of
// changing every other user's bytes. It returns nil (the caller copies as
// before) for n <= 0 or n > ZerosMax, for a nil Arena, after a mapping
// failed, and where there are no mappings.
func (a *Arena) Zeros(n int) []byte {
	if n <= 0 || n > ZerosMax || a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.plain || a.noZero {
		return nil
	}
	if a.zeros == nil {
		m, ok := mapZeros(ZerosMax)
		if !ok {
			a.noZero = true
			return nil
		}
		a.zeros = m
	}
	return a.zeros[:n:n]
}

// OffHeap reports whether every buffer handed out so far came from a
// mapping (false for a nil Arena and after a mapping failed).
func (a *Arena) OffHeap() bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.plain
}

// Free unmaps every buffer Alloc returned; none may be used afterwards
// (nor any string or slice aliasing one).
func (a *Arena) Free() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.chunks {
		unmap(m)
	}
	if a.zeros != nil {
		unmap(a.zeros)
	}
	a.chunks, a.cur, a.zeros, a.used, a.spare, a.reach, a.at, a.pos = nil, nil, nil, 0, nil, nil, 0, 0
	a.reset, a.top, a.topEnd, a.pinned = false, 0, 0, false
}

// pageSize is the small page size Touch steps by.
const pageSize = 4 << 10

// Touch faults in every page of b by writing it, leaving its bytes as
// they are (an atomic add of zero to an aligned word of b in each page; a
// page where b holds no whole aligned word, at either end, is left
// alone). Memory that is read before it is written maps the kernel's zero
// page on the first read and takes a second fault on the first write,
// whose copy-on-write flushes the page from every core's TLB (an
// interrupt to each other core the process runs on); touched here first,
// each page faults once and no other core is interrupted. Touch must not
// race with other writes to b.
func Touch(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := int(-start & 3) // the first 4-byte-aligned offset
	if len(b) < first+4 {
		return
	}
	last := first + (len(b)-4-first)&^3 // (the last whole aligned word)
	for i := first; ; i += pageSize {
		if i > last {
			i = last // (the last page, which the steps may have skipped)
		}
		atomic.AddUint32((*uint32)(unsafe.Pointer(&b[i])), 0)
		if i == last {
			return
		}
	}
}
