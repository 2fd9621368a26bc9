package merge

import (
	"hash/maphash"
	"slices"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/prefetch"
)

// StrTab is a deduplicating ELF string table that keeps insertion order.
//
// The index is an open-addressing table over the table's own bytes: a
// slot holds where a string is and its hash (8 bytes), so interning a name
// that is already there allocates nothing and a new one costs only its
// bytes in buf and 4 bytes in firsts. (A map[string] kept a second copy of every name: at
// 10,000 objects about 10 MB, the largest single cost of the string
// tables.)
type StrTab struct {
	buf    []byte
	slots  []strSlot // any length (see home); off == 0 marks an empty slot (the empty string is handled apart)
	firsts []uint32  // offsets of the distinct strings in the order added (ascending), for Ordinal
	n      int       // distinct strings indexed
	// noOrdinals: the table answers no Ordinal and keeps no firsts
	// (.strtab: only .shstrtab's ordinals are written, in .symtab_shndx).
	noOrdinals bool
	seed       maphash.Seed
	// queued: a strQueue's goroutine makes the additions (merge); the
	// methods below refuse to run meanwhile (they would race with it).
	queued bool
}

// mustNotBeQueued panics when t's additions are queued (see strQueue).
func (t *StrTab) mustNotBeQueued() {
	if t.queued {
		panic("merge: string table used while its additions are queued")
	}
}

// strSlot is one indexed string, the NUL-terminated bytes at off (> 0).
type strSlot struct {
	off, hash uint32
}

// NewStrTab returns a table holding only the empty string.
func NewStrTab() *StrTab {
	return &StrTab{buf: []byte{0}, slots: make([]strSlot, 64), seed: maphash.MakeSeed()}
}

// newStrTabNoOrdinals is NewStrTab for a table whose Ordinal nothing asks
// (.strtab): it keeps 4 bytes less a string (4 MB at 100,000 generated
// objects).
func newStrTabNoOrdinals() *StrTab {
	t := NewStrTab()
	t.noOrdinals = true
	return t
}

// Reserve makes room for about n more bytes of strings (a hint: the
// table still grows past it). alloc, if not nil, provides the memory (see
// hugemem: it stays valid for the table's life; growth past the hint
// comes from the Go heap).
func (t *StrTab) Reserve(n int, alloc func(int) []byte) {
	t.mustNotBeQueued()
	t.reserve(n, alloc)
}

// reserve is Reserve for a strQueue's consumer.
func (t *StrTab) reserve(n int, alloc func(int) []byte) {
	if n <= 0 {
		return
	}
	if alloc == nil {
		alloc = func(n int) []byte { return make([]byte, n) }
	}
	// The hint (the inputs' tables together) runs about 1.6 times the
	// result on generated links: names repeat across inputs.
	t.buf = append(alloc(len(t.buf) + n*2/3)[:0], t.buf...)
	// A distinct name takes 50-56 bytes of the hint on generated links
	// (10,000 objects: 80,135 names in .strtab for 4.1 MB of input
	// tables, 62,787 in .shstrtab for 3.4 MB; 1,000 objects: 8,064 for
	// 403 KB; 100,000: 795,353 for 42 MB and 629,810 for 35 MB): one slot
	// per 31 bytes loads the index to 0.56-0.62, under its limit of 0.7
	// (insert) with some room. (Every slot is touched, so an oversized
	// index costs its whole size in memory: one slot per 22 bytes, a load
	// of 0.4, took 8 MB more at 100,000 objects, 1.9 MB more peak RSS at
	// 10,000, for no faster merge; an undersized one grows on the Go heap
	// and is built twice. Rounded to a power of two, n/48 slots grew
	// .strtab's index at every size, and both at 100,000 objects: 32 MB
	// more on the heap, 16 MB left unused in the arena.)
	want := max(64, n/31)
	if want > len(t.slots) {
		old := t.slots
		t.slots = elf.SliceOf[strSlot](want, alloc)
		t.rehash(old)
	}
	// firsts fills up to the load limit before the index grows.
	if n := want * 7 / 10; n > cap(t.firsts) && !t.noOrdinals {
		t.firsts = append(elf.SliceOf[uint32](n, alloc)[:0], t.firsts...)
	}
}

// home is the first slot a string of hash h may take: the hash scaled to
// the table's length (a multiply and a shift, for a table of any length).
func (t *StrTab) home(h uint32) int {
	return int(uint64(h) * uint64(len(t.slots)) >> 32)
}

// find returns the slot of s, or the empty slot where it would go.
func (t *StrTab) find(s string, h uint32) int {
	for i := t.home(h); ; i = t.after(i) {
		e := &t.slots[i]
		if e.off == 0 {
			return i
		}
		end := int(e.off) + len(s)
		if e.hash == h && end < len(t.buf) && t.buf[end] == 0 && string(t.buf[e.off:end]) == s {
			return i
		}
	}
}

func (t *StrTab) hash(s string) uint32 {
	return uint32(maphash.String(t.seed, s))
}

// Add interns s and returns its offset.
func (t *StrTab) Add(s string) uint32 {
	t.mustNotBeQueued()
	return t.add(s)
}

// add is Add for a strQueue's consumer.
func (t *StrTab) add(s string) uint32 {
	if s == "" {
		return 0
	}
	return t.addHashed(s, t.hash(s))
}

// addHashed is add of a string s other than "" whose hash is h.
func (t *StrTab) addHashed(s string, h uint32) uint32 {
	i := t.find(s, h)
	if t.slots[i].off != 0 {
		return t.slots[i].off
	}
	return t.insert(i, s, h)
}

// insert appends s to the table and indexes it in empty slot i.
func (t *StrTab) insert(i int, s string, h uint32) uint32 {
	o := uint32(len(t.buf))
	t.buf = append(t.buf, s...)
	t.buf = append(t.buf, 0)
	t.slots[i] = strSlot{off: o, hash: h}
	if !t.noOrdinals {
		t.firsts = append(t.firsts, o)
	}
	if t.n++; 10*(t.n+1) > 7*len(t.slots) { // (a load of 0.7: reserve)
		t.grow()
	}
	return o
}

// prefault faults in the index's pages by writing them (see
// hugemem.Touch): find reads a slot before insert writes it. Not while
// another goroutine may use t.
func (t *StrTab) prefault() {
	touchSlice(t.slots)
}

func (t *StrTab) grow() {
	old := t.slots
	t.slots = make([]strSlot, 2*len(old))
	t.rehash(old)
}

// after is the slot probed after slot i.
func (t *StrTab) after(i int) int {
	if i++; i == len(t.slots) {
		return 0
	}
	return i
}

// rehash indexes the entries of old in t.slots.
func (t *StrTab) rehash(old []strSlot) {
	for _, e := range old {
		if e.off == 0 {
			continue
		}
		i := t.home(e.hash)
		for t.slots[i].off != 0 {
			i = t.after(i)
		}
		t.slots[i] = e
	}
}

// Ordinal is the position of s among the distinct strings in the order
// they were added (0 for the empty string and for strings not present).
func (t *StrTab) Ordinal(s string) int32 {
	t.mustNotBeQueued()
	if t.noOrdinals {
		panic("merge: Ordinal of a string table that keeps none")
	}
	if s == "" {
		return 0
	}
	e := t.slots[t.find(s, t.hash(s))]
	if e.off == 0 {
		return 0
	}
	i, _ := slices.BinarySearch(t.firsts, e.off)
	return int32(i + 1)
}

// AddDup appends s even if present (nvlink adds some strings twice) and
// returns the new copy's offset; lookups keep finding the first copy.
func (t *StrTab) AddDup(s string) uint32 {
	t.mustNotBeQueued()
	return t.addDup(s)
}

// put is add, or addDup with dup: the one entry of a strQueue's consumer
// and of Context.addStrTo.
func (t *StrTab) put(s string, dup bool) uint32 {
	if dup {
		return t.addDup(s)
	}
	return t.add(s)
}

// putHashed is put of a string s other than "" whose hash is h.
func (t *StrTab) putHashed(s string, h uint32, dup bool) uint32 {
	if dup {
		return t.addDupHashed(s, h)
	}
	return t.addHashed(s, h)
}

// addDup is AddDup for a strQueue's consumer.
func (t *StrTab) addDup(s string) uint32 {
	if s == "" {
		return t.appendCopy(s)
	}
	return t.addDupHashed(s, t.hash(s))
}

// addDupHashed is addDup of a string s other than "" whose hash is h.
func (t *StrTab) addDupHashed(s string, h uint32) uint32 {
	if i := t.find(s, h); t.slots[i].off == 0 {
		return t.insert(i, s, h)
	}
	return t.appendCopy(s)
}

// appendCopy appends s to the table without indexing it (a later copy).
func (t *StrTab) appendCopy(s string) uint32 {
	o := uint32(len(t.buf))
	t.buf = append(t.buf, s...)
	t.buf = append(t.buf, 0)
	return o
}

// prefetchSlot asks for the first slot a lookup of hash h reads.
func (t *StrTab) prefetchSlot(h uint32) {
	prefetch.Line(uintptr(unsafe.Pointer(&t.slots[t.home(h)])))
}

// prefetchFirst asks for the bytes of the string in the first slot of
// hash h, when its hash is h (the lookup compares them next).
func (t *StrTab) prefetchFirst(h uint32) {
	if e := t.slots[t.home(h)]; e.off != 0 && e.hash == h && int(e.off) < len(t.buf) {
		prefetch.Line(uintptr(unsafe.Pointer(&t.buf[e.off])))
	}
}

// Bytes is the encoded table.
func (t *StrTab) Bytes() []byte {
	t.mustNotBeQueued()
	return t.buf
}
