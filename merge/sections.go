package merge

// Generated output sections: storage for them (allocSec, from a slab)
// and their creation (newSection, or genSection then addSection), shared
// by merge, layout, relocate and finalize.
// Invariant: a section's creation order is its order inside its bucket
// (orderSections sorts stably), so callers create sections in nvlink's
// order.

import (
	"unsafe"

	"github.com/warplink/warplink/internal/hugemem"
)

// allocSec returns storage for a new output section from a slab, zeroed
// (no slab's record is used twice: makeOutSectionNew fills only the
// fields it sets).
func (ctx *Context) allocSec() *OutSec {
	if len(ctx.secSlab) == cap(ctx.secSlab) {
		refillSlab(ctx, &ctx.secSlab, &ctx.secSlabs, secSlabLen, fedSecs)
	}
	ctx.secSlab = ctx.secSlab[:len(ctx.secSlab)+1]
	return &ctx.secSlab[len(ctx.secSlab)-1]
}

// refillSlab makes *slab, full, an empty slab of records: a spare one
// made earlier (spares), else one growing to most records, full-size
// from the string queue's feed (fed) when it has one ready, else new.
// Each is zeroed memory no record was ever placed in, which allocSec's
// and allocSym's callers rely on.
func refillSlab[T any](ctx *Context, slab *[]T, spares *[][]T, most int, fed func(*slabFeed) chan []T) {
	if len(*spares) > 0 {
		*slab, *spares = (*spares)[0], (*spares)[1:]
	} else if n := slabCap(cap(*slab), most); n < most || !takeFed(ctx, fed, slab) {
		*slab = recordSlab[T](ctx, n)
	}
}

// The most records of one slab of sections and of symbols.
const (
	secSlabLen = 1024
	symSlabLen = 4096
)

// recordSlab is an empty slab of capacity n for output sections or
// symbols (allocSec, newSym), in memory the collector neither scans nor
// follows pointers through: at 10,000 objects the 40,000 sections (128
// bytes) and 50,000 symbols (64) were a third of the live heap that each
// of passDone's collections marked; at 100,000 the collections after
// merge spend about half the CPU they did. A small link's (SmallPages:
// Context.recordsMapped) come from the main arena, which gives them its
// huge pages: 1,000 objects 0.3 MB less peak RSS than on the heap and
// merge 0.5 ms faster; a larger link's are heap memory allocated as
// pointer-free (and pinned: the lists of them are pointer-free too,
// growRecords), since in the arena they took fresh pages where the heap
// reuses what read and resolve left (100,000 objects: 7 MB more peak
// RSS).
//
// So a record may point only at memory kept alive from elsewhere, as in
// the arenas (hugemem.Arena.AllocMapped): the inputs' bytes (their
// names, until merge ends; then the output's string tables, which
// releaseNames pins), or what pin holds, which the setters of anything
// else a record points to (setData, setPieces, setRelocs, setGen) and
// the makers of generated sections (newSection, newRelSection,
// lateSharedSection, claimCode's .nv.shared.<k>) pin; a symbol's name is
// an input's or its section's until then. (A section of secChunks has
// its own storage and rule.)
func recordSlab[T any](ctx *Context, n int) []T {
	s := untouchedSlab[T](ctx, n)
	// The first store to a record reads it first while the collector
	// marks (the write barrier of its Name), which on a fresh page maps
	// the kernel's zero page, and the store then faults again, a
	// copy-on-write that interrupts every other core to flush its TLB.
	// Written here, each page faults once.
	touchSlice(s[:n])
	return s
}

// untouchedSlab is recordSlab without the touch (for callers that fault
// the slab in themselves).
func untouchedSlab[T any](ctx *Context, n int) []T {
	var z T
	size := n * int(unsafe.Sizeof(z))
	var b []byte
	if ctx.recordsMapped {
		b = ctx.mem.AllocMapped(size)
	}
	if b == nil {
		b = noscanBytes(size)
		ctx.pin(unsafe.Pointer(unsafe.SliceData(b)))
	}
	return recordsIn[T](b, n)[:0]
}

// appendRecord appends p to l (Context.Secs or Syms), growing it into
// pointer-free memory (growRecords).
func appendRecord[T any](l []*T, p *T) []*T {
	if len(l) == cap(l) {
		l = growRecords(l, max(len(l)/4, 64)) // (as append grows a long slice)
	}
	return append(l, p)
}

// growRecords returns l with room for n more, in heap memory allocated
// as pointer-free: a collection then neither scans the list nor looks up
// the record each entry points to (at 10,000 objects 90,000 of them,
// which took a quarter of passDone's collections' time, 2.6 ms of 9.5).
// So a list may point only at records kept alive from elsewhere: those
// of recordSlab's slabs (in the arena, or pinned), and finalize's
// .nv.info.<f> sections (Context.infoSecs holds their chunks).
func growRecords[T any](l []*T, n int) []*T {
	if cap(l)-len(l) >= n {
		return l
	}
	b := noscanBytes((len(l) + n) * int(unsafe.Sizeof(uintptr(0))))
	m := recordsIn[*T](b, len(l)+n)[:len(l)]
	copy(m, l)
	return m
}

// noscanBytes returns size zeroed bytes, 8-byte aligned, of heap memory
// allocated as pointer-free: the collector neither scans them nor follows
// a pointer stored in them, so what they point to must be kept alive from
// elsewhere (pin, objKeep).
func noscanBytes(size int) []byte {
	w := make([]uint64, (size+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), size)
}

// recordsIn is b, at least n records' bytes (8-byte aligned), as n
// records of T.
func recordsIn[T any](b []byte, n int) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// pin keeps p (nil or not) alive for the link: only pointer-free memory
// (a recordSlab's records, a growRecords list) points to it. Not
// concurrently.
func (ctx *Context) pin(p unsafe.Pointer) {
	if p != nil {
		ctx.pins.add(p)
	}
}

// pinList is pointers kept alive (Context.pin), in chunks that double
// from 16 to pinChunk (slabCap): one slice grown by append would leave
// some four times its size behind as garbage (200,000 pointers at
// 100,000 objects: 9 MB more allocated before the next collection).
type pinList struct {
	chunks [][]unsafe.Pointer
}

const pinChunk = 4096

// add appends p and returns its place (chunk<<16 | index).
func (l *pinList) add(p unsafe.Pointer) int {
	if k := len(l.chunks) - 1; k < 0 || len(l.chunks[k]) == cap(l.chunks[k]) {
		last := 0
		if k >= 0 {
			last = cap(l.chunks[k])
		}
		l.chunks = append(l.chunks, make([]unsafe.Pointer, 0, slabCap(last, pinChunk)))
	}
	k := len(l.chunks) - 1
	l.chunks[k] = append(l.chunks[k], p)
	return k<<16 | (len(l.chunks[k]) - 1)
}

// set puts p in place at, for what was there.
func (l *pinList) set(at int, p unsafe.Pointer) { l.chunks[at>>16][at&0xFFFF] = p }

// pinName is pin for a name's bytes.
func (ctx *Context) pinName(n string) { ctx.pin(unsafe.Pointer(unsafe.StringData(n))) }

// slabCap is the capacity of the slab that follows one of capacity last
// (0: none): doubling from 16 up to most. A small link then allocates
// about what it uses (one object: a dozen sections, a few dozen symbols)
// instead of a 200-256 KiB slab, which in a fresh process grows the heap
// (a one-object link: 60 page faults, a tenth of a millisecond); a large
// one still allocates slabs of most.
func slabCap(last, most int) int { return min(max(2*last, 16), most) }

// touchSlice faults in the pages of s by writing them (hugemem.Touch):
// for fresh memory that the first use reads before it writes.
func touchSlice[T any](s []T) {
	var z T
	hugemem.Touch(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z))))
}

// slabTake is an empty slice of capacity n from the free end of *free, a
// slab of slabLen elements (a new one when n does not fit): one
// allocation for many small lists. A list past a quarter of a slab is an
// allocation of its own. The capacity ends at n, so that an append past
// it moves the list.
func slabTake[T any](free *[]T, n, slabLen int) []T {
	if n > slabLen/4 {
		return make([]T, 0, n)
	}
	if n > len(*free) {
		*free = make([]T, slabLen)
	}
	p := (*free)[:0:n]
	*free = (*free)[n:]
	return p
}

// newSection creates a generated output section.
func (ctx *Context) newSection(name string, typ uint32, flags, align uint64, entsize uint16) *OutSec {
	s := ctx.allocSec()
	genSection(s, name, typ, flags, align, entsize)
	ctx.pinName(name)
	ctx.addSection(s)
	return s
}

// genSection makes *s a generated output section's record before
// addSection makes it a section of the output (newSection does both;
// buildNvInfo prepares its many records in parallel, then adds them in
// order). (Cleared, then stored field by field: a record made whole and
// copied in was read in 16-byte words right after its narrow fields
// were stored, a stall at every section.)
func genSection(s *OutSec, name string, typ uint32, flags, align uint64, entsize uint16) {
	*s = OutSec{}
	s.Name, s.Type, s.Flags, s.Align, s.entsize = name, typ, flags, align, entsize
	s.InfoSym, s.InfoSec, s.SymID = -1, -1, -1
}

// addSection makes s (from genSection) the next output section: its ID,
// and its name entered in the section name tables.
func (ctx *Context) addSection(s *OutSec) {
	var h uint32
	if !ctx.secNamesDone {
		h = secNameHash(s.Name)
	}
	ctx.addSectionHashed(s, h)
}

// addSectionHashed is addSection with the secNames hash h of s's name.
func (ctx *Context) addSectionHashed(s *OutSec, h uint32) {
	s.ID = int32(len(ctx.Secs))
	ctx.Secs = appendRecord(ctx.Secs, s)
	if !ctx.secNamesDone {
		ctx.secNames.set(ctx.Secs, h, s.ID)
		ctx.noteSecName(s.ID, s.Name)
	}
	ctx.addStr(ctx.ShStr, s.Name, &s.nameOff)
}
