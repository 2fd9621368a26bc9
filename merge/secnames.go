package merge

import (
	"unsafe"

	"github.com/warplink/warplink/internal/prefetch"
	"github.com/warplink/warplink/shard"
)

// secNames is the output sections by name (Context.secNames): an
// open-addressing table of (hash, section ID) slots whose names are the
// sections' own (OutSec.Name), so a slot is 8 bytes and holds no string.
//
// Why not a map[string]int32: merge's serial walk looks up every input
// section's name (1.4 million at 100,000 generated objects), and most of
// those names are new. A miss here reads one slot, where the map hashed
// the name and read a control group and a string header; the map also
// took 26 MB at 100,000 objects against 8 here.
//
// Invariant: a slot's section has the slot's name and hash; every name
// has at most one slot; slots is a power of two in length, at most
// half full (grow).
type secNames struct {
	slots []hashSlot
	n     int // slots in use
}

// hashSlot is one entry of a table filed by name hash with open
// addressing (secNames, resolve's nameIndex): ref is the filed ID or
// index plus one (0: an empty slot, so a new table needs no filling).
type hashSlot struct {
	hash uint32
	ref  int32
}

// refile returns a table of size slots (a power of two) holding old's
// entries, each filed by the hash it keeps.
func refile(old []hashSlot, size int) []hashSlot {
	slots := make([]hashSlot, size)
	mask := uint32(size - 1)
	for _, e := range old {
		if e.ref == 0 {
			continue
		}
		i := e.hash & mask
		for slots[i].ref != 0 {
			i = (i + 1) & mask
		}
		slots[i] = e
	}
	return slots
}

// secNameHash is the hash secNames files name under.
func secNameHash(name string) uint32 { return shard.Murmur3String(name) }

// newSecNames returns a table sized for n names without growing, its
// pages faulted in by writing (touchSlice): lookups read a slot before an
// insertion writes it.
func newSecNames(n int) secNames {
	size := 16
	for size < 2*n {
		size *= 2
	}
	t := secNames{slots: make([]hashSlot, size)}
	touchSlice(t.slots)
	return t
}

// find returns the ID of the section named name (hash h), if any (0 if
// none, as a map would).
func (t *secNames) find(secs []*OutSec, h uint32, name string) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.ref == 0 {
			return 0, false
		}
		if s.hash == h && secs[s.ref-1].Name == name {
			return s.ref - 1, true
		}
	}
}

// prefetch asks for the slot a lookup of hash h reads first.
func (t *secNames) prefetch(h uint32) {
	if len(t.slots) > 0 {
		prefetch.Line(uintptr(unsafe.Pointer(&t.slots[h&uint32(len(t.slots)-1)])))
	}
}

// set files section id under its name (hash h), in place of the
// section filed under that name before, if any.
func (t *secNames) set(secs []*OutSec, h uint32, id int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	name := secs[id].Name
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.ref == 0 {
			*s = hashSlot{hash: h, ref: id + 1}
			t.n++
			return
		}
		if s.hash == h && secs[s.ref-1].Name == name {
			s.ref = id + 1
			return
		}
	}
}

// grow doubles the table (at least 16 slots).
func (t *secNames) grow() { t.slots = refile(t.slots, max(2*len(t.slots), 16)) }

// secNamed returns the ID of the output section filed under name.
func (ctx *Context) secNamed(name string) (int32, bool) {
	return ctx.secNames.find(ctx.Secs, secNameHash(name), name)
}

// setSecName files output section id under its name, in place of any
// section filed under it before (the last of a name takes it).
func (ctx *Context) setSecName(id int32) {
	ctx.secNames.set(ctx.Secs, secNameHash(ctx.Secs[id].Name), id)
}
