package merge

// slabfeed: the record slabs merge's walk fills next, made and faulted in
// by the string queue's consumer while it waits for additions.
//
// Inputs: the walk's need for section and symbol slabs (allocSec, newSym).
// Outputs: full-size slabs (secSlabLen, symSlabLen records), their pages
// written (touchSlice), handed to the walk over channels; what is left at
// close goes to Context.secSlabs and symSlabs, for the passes after.
// Invariants: a slab is written by the consumer only before it is sent,
// and by the walk only after it is received; the walk pins it (recordSlab's
// rule) as it takes it. Which memory records land in changes nothing else:
// the records and every output are the same with or without the feed.
//
// Why: the walk's stores into fresh slabs fault their pages (the kernel
// clearing them), serially, while the consumer's core waits for the next
// batch about a third of merge.

import "unsafe"

// The slabs the consumer keeps ready: enough to cover its longest work
// between two waits, few enough that what close finds left is small.
const (
	fedSecSlabs = 4 // (128 KiB each)
	fedSymSlabs = 2 // (256 KiB each)
)

// feedMin is the least input (sections and symbols together) for which
// merge has its slabs made ready: about 5,500 generated objects (10,000
// have 235,000). The feed makes no more slabs than the walk is expected
// to fill, so that few are left at close (uncapped, those cost a
// 10,000-object link up to 2 MB of peak RSS); smaller links keep the
// walk's own slabs.
const feedMin = 1 << 17

// slabFeed holds the ready slabs.
type slabFeed struct {
	secs  chan []OutSec
	syms  chan []OutSym
	taken int // slabs the walk took (on the walk only)
	// secsLeft and symsLeft are how many more slabs of each the feed
	// makes (on the consumer only): about what the walk fills, so that
	// few are left at close.
	secsLeft, symsLeft int
}

// newSlabFeed returns a feed for a walk of nsec input sections and nsym
// input symbols: it makes the slabs of up to 3 output sections in 10
// and 2 output symbols in 5 of them (generated links: 0.33 and 0.45).
func newSlabFeed(nsec, nsym int) *slabFeed {
	return &slabFeed{secs: make(chan []OutSec, fedSecSlabs), syms: make(chan []OutSym, fedSymSlabs),
		secsLeft: nsec * 3 / 10 / secSlabLen, symsLeft: nsym * 2 / 5 / symSlabLen}
}

// feed makes one more slab ready, if one is missing, and reports whether
// it did. On the consumer only.
func (f *slabFeed) feed() bool {
	switch {
	case f == nil:
		return false
	case len(f.secs) < cap(f.secs) && f.secsLeft > 0:
		f.secs <- fedSlab[OutSec](secSlabLen)
		f.secsLeft--
	case len(f.syms) < cap(f.syms) && f.symsLeft > 0:
		f.syms <- fedSlab[OutSym](symSlabLen)
		f.symsLeft--
	default:
		return false
	}
	return true
}

// fedSlab is an empty slab of n records in pointer-free heap memory (as
// recordSlab's), its pages written.
func fedSlab[T any](n int) []T {
	var z T
	size := n * int(unsafe.Sizeof(z))
	s := recordsIn[T](noscanBytes(size), n)
	touchSlice(s)
	return s[:0]
}

// fedSecs and fedSyms are the feed's channels of section and symbol
// slabs (refillSlab).
func fedSecs(f *slabFeed) chan []OutSec { return f.secs }
func fedSyms(f *slabFeed) chan []OutSym { return f.syms }

// takeFed makes a slab ready on the string queue's feed (fed: which
// channel) *slab, pinned, if there is one, and reports whether it did.
func takeFed[T any](ctx *Context, fed func(*slabFeed) chan []T, slab *[]T) bool {
	if ctx.strq == nil || ctx.strq.slabs == nil {
		return false
	}
	f := ctx.strq.slabs
	select {
	case s := <-fed(f):
		ctx.pin(unsafe.Pointer(unsafe.SliceData(s)))
		*slab = s
		f.taken++
		return true
	default:
		return false
	}
}

// keepFed hands the slabs still ready after the consumer is done to the
// slabs allocSec and newSym take first.
func (ctx *Context) keepFed(f *slabFeed) {
	if f == nil {
		return
	}
	close(f.secs)
	close(f.syms)
	for s := range f.secs {
		ctx.pin(unsafe.Pointer(unsafe.SliceData(s)))
		ctx.secSlabs = append(ctx.secSlabs, s)
	}
	for s := range f.syms {
		ctx.pin(unsafe.Pointer(unsafe.SliceData(s)))
		ctx.symSlabs = append(ctx.symSlabs, s)
	}
}
