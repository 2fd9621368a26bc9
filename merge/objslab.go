package merge

// Slabs of the objects and file records read decodes (objSlot), in
// memory the collector does not scan when the link's arenas are mapped.
// Invariant: whatever a pointer-free slot points to on the heap is kept
// alive from scanned memory (objKeep), or is an array the Context holds
// (objArrays); the rest lies in the arenas.

import (
	"math"
	"sync"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/input"
)

// objSlot holds the object of an input that holds one cubin (most do),
// and the record of a .cubin's decoded file (input.File.Into), in a slab
// per batch of inputs (readInputs), pointer-free where the arenas are
// mapped (noscanSlab). Typed, these records are most of what the
// collections after the passes scan (heapSizer.passDone), and in slabs
// the collector reads them in sequence: allocated one by one, scattered
// over the heap, each was a cache miss of its own, and at 10,000 objects
// the four collections took half again as much marking CPU (11.2 against
// 7.6 ms, medians of 15 links), and at 100,000 objects the link took a
// tenth less wall time (medians of five alternating links) in the same
// peak RSS. (The slabs, live among read's scratch buffers, leave more of
// the heap's free pages unusable by merge's larger allocations: 20 MB
// more peak there when those pages stay resident; a large link returns
// them after resolve, cmd/warplink's returnLargeAfter.) The object comes
// first (Obj.rareKeep).
type objSlot struct {
	obj  Obj
	file elf.File
}

// objKeep holds, for the objects of pointer-free slabs (noscanSlab),
// what they point to on the heap: each is written here before or as it
// is written to the slot, while the writer still holds it, so that no
// collection finds it only in memory it does not scan.
type objKeep struct {
	// batches are read's batches' lists (batchKeep), by batch number.
	batches []batchKeep
	// heap are read's allocations that an arena could not map
	// (keptAlloc): rare, but then the tables a slot points to are here.
	mu   sync.Mutex
	heap [][]byte
}

// batchKeep is one batch's: its slab (Context.Objs, pointer-free then,
// points into it), the names and file records its objects' slots point
// to on the heap (an input named otherwise than its path on the command
// line, a cubin not decoded into its slot's record: keptRefs) and its
// inputs' objects not in the slab, and each slot's objRare (which more
// sets: Obj.rareKeep).
type batchKeep struct {
	slab  unsafe.Pointer
	refs  []unsafe.Pointer
	rares []*objRare
}

// keptAlloc returns mapped with a fallback for a failed mapping: heap
// memory allocated as pointer-free and held in k.heap for the link,
// where mapped's caller would allocate typed memory that only a
// pointer-free slot would point to. What the tables so placed point to
// is mapped or held there too: the file's kept bytes and names.
func (k *objKeep) keptAlloc(mapped func(int) []byte) func(int) []byte {
	return func(n int) []byte {
		if b := mapped(n); b != nil || n <= 0 {
			return b
		}
		b := noscanBytes(n)
		k.mu.Lock()
		k.heap = append(k.heap, b)
		k.mu.Unlock()
		return b
	}
}

// noscanSlab returns n zeroed slots in heap memory allocated as
// pointer-free, after a slabHead naming keep, their batch's: the
// collections after the passes then neither scan the slots nor follow
// their pointers (some ten an object: section and symbol tables,
// Context's arrays, the record itself), which made most of what each
// collection at 100,000 objects marked. As with the output's record slabs
// (recordSlab), a slot may point only at memory kept alive from
// elsewhere: see objKeep. (n is within Obj.slot's range: readInputs. The
// head's 8 bytes fit in the size class of a ring's batch of 27 slots.)
func noscanSlab(n int, keep *batchKeep) []objSlot {
	head := int(unsafe.Sizeof(slabHead{}))
	p := unsafe.Pointer(unsafe.SliceData(noscanBytes(head + n*int(unsafe.Sizeof(objSlot{})))))
	(*slabHead)(p).keep = keep
	return unsafe.Slice((*objSlot)(unsafe.Add(p, head)), n)
}

// slabHead starts a pointer-free slab: its batch's keep, which the
// objects' objRare go to (Obj.rareKeep; kept alive by Context.objKeep).
type slabHead struct{ keep *batchKeep }

// rareKeep is where more puts the objRare of an object of a pointer-free
// slab (Obj.slot), in scanned memory: its batch's rares, found through
// the slab's head (an Obj starts its objSlot).
func (o *Obj) rareKeep() **objRare {
	k := int(o.slot) - 1
	head := (*slabHead)(unsafe.Add(unsafe.Pointer(o), -k*int(unsafe.Sizeof(objSlot{}))-int(unsafe.Sizeof(slabHead{}))))
	return &head.keep.rares[k]
}

// keptRefs appends to refs what slot's object points to on the heap
// once decoded from the single unit of an input: its name, unless that
// is the input's path as the command line gave it (pathKept: held in
// Options.Inputs), and its file record f, unless the slot's own. Called
// while the input's units, in scanned memory, still hold both.
func keptRefs(refs []unsafe.Pointer, slot *objSlot, name, path string, pathKept bool, f *elf.File) []unsafe.Pointer {
	if !pathKept || unsafe.StringData(name) != unsafe.StringData(path) {
		refs = append(refs, unsafe.Pointer(unsafe.StringData(name)))
	}
	if f != &slot.file {
		refs = append(refs, unsafe.Pointer(f))
	}
	return refs
}

// objArrays are the arrays whose slices every object holds (allocResIDs:
// resID; merge: SymMap and SecMap in maps, SecOff, Drop), for objects in
// pointer-free slabs; each goes when the objects' slices do.
type objArrays struct {
	resID [][]int32
	maps  [][]int32
	offs  [][]uint32
	drops [][]bool
}

// keepMaps keeps merge's arrays a whole, before objects take slices of
// them (objMaps.take).
func (k *objArrays) keepMaps(a objMaps) {
	k.maps, k.offs, k.drops = append(k.maps, a.maps), append(k.offs, a.offs), append(k.drops, a.drops)
}

// keepSlabs makes read's batches of batch inputs (n in all) put their
// objects in pointer-free slabs (noscanSlab) where both arenas are
// mapped; what a failed mapping would put on the heap is kept
// (keptAlloc). (Names: nil from the arena puts them in Keep's memory.)
func (l *loaded) keepSlabs(ctx *Context, mem *input.Memory, n, batch int) {
	if !ctx.mem.OffHeap() || !ctx.tables.OffHeap() || batch > math.MaxUint8 {
		return
	}
	k := &objKeep{batches: make([]batchKeep, (n+batch-1)/batch)}
	l.keep, l.tables = k, k.keptAlloc(ctx.tables.AllocMapped)
	mem.Keep, mem.Tables, mem.Symbols = k.keptAlloc(ctx.mem.AllocMapped), k.keptAlloc(ctx.mem.AllocMapped), l.tables
}

// batchSlab is the slab of batch b's n objects: pointer-free, with its
// batch's keep, or typed memory (keep nil).
func (l *loaded) batchSlab(b, n int) ([]objSlot, *batchKeep) {
	if l.keep == nil {
		return make([]objSlot, n), nil
	}
	bk := &l.keep.batches[b]
	slab := noscanSlab(n, bk)
	bk.rares, bk.slab = make([]*objRare, n), unsafe.Pointer(unsafe.SliceData(slab))
	return slab, bk
}
