package merge

// relocate's kept relocations: what relocating one object records (its
// events and kept entries, objRelocs), the runs they make per output
// relocation section, the lists walked back from them (keptList), and the
// room made for the sections that hold them (reserveSecs).
// Invariant: a list is its runs in reverse file order, each reversed
// (nvlink prepends).

import (
	"slices"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/prefetch"
)

// reserveSecsFrom is the least count of sections reserveSecs makes room
// for: below it the goroutines cost more than the faults they share.
const reserveSecsFrom = 4096

// reserveSecs makes room for n more output sections in slabs that
// allocSec takes in turn, in memory faulted in by all the link's threads:
// the first write to fresh memory (the kernel clearing its pages) is
// otherwise most of the serial cost of making relocate's sections. The
// slabs are allocSec's usual size, which the heap can place in the free
// runs of pages earlier passes' garbage left, where one array (15 MB at
// 100,000 objects) would need fresh memory. (A few of the n may stay
// unused: lists that came out empty.)
func (ctx *Context) reserveSecs(n int) {
	if n < reserveSecsFrom || cap(ctx.secSlab)-len(ctx.secSlab) >= n {
		return
	}
	slabs := make([][]OutSec, (n+secSlabLen-1)/secSlabLen)
	for i := range slabs {
		slabs[i] = untouchedSlab[OutSec](ctx, secSlabLen) // (touched below, in parallel)
	}
	parallelFor(len(slabs), ctx.Opts.Threads, func(i int) error {
		touchSlice(slabs[i][:secSlabLen])
		return nil
	})
	ctx.secSlabs = append(ctx.secSlabs, slabs...)
}

// relSecReady is a relocation section prepared for newRelSection: its
// list (empty: no section), its name (pinned: see recordSlab), the
// name's .shstrtab hash and, when the table holds the name already (an
// input's own relocation section of that name put it there), its offset
// (0: not looked up, or not there).
type relSecReady struct {
	l    []OutRel
	name string
	h    uint32
	off  uint32
}

// prepareRelSecs gathers the list, name and name hash of each section of
// order, and the name's .shstrtab offset when the table has it, in
// parallel (the lists are disjoint runs of done, the names and
// tables only read), so that making them in order is all that stays
// serial. A batch's names share one buffer (the inputs' own names of
// their relocation sections are gone with their string tables:
// releaseNames; one concatenation each took 20 ms a link at 100,000
// objects), pinned here.
func prepareRelSecs(ctx *Context, order []relSecMade, runs []relRun, last *lastRuns, done []objRelocs) []relSecReady {
	ready := make([]relSecReady, len(order))
	const batch = 256
	bufs := make([][]byte, (len(order)+batch-1)/batch)
	lookup := ctx.relSecsDirect()
	parallelFor(len(bufs), ctx.Opts.Threads, func(b int) error {
		lo, hi := b*batch, min(len(order), (b+1)*batch)
		size := 0
		for i := lo; i < hi; i++ {
			// (The target's record, then its name, asked for ahead: each
			// is a miss at every section otherwise. Hints only.)
			if a := i + 12; a < hi {
				prefetch.Range(unsafe.Pointer(ctx.Secs[order[a].tgt]), 64)
			}
			if a := i + 6; a < hi {
				n := ctx.Secs[order[a].tgt].Name
				prefetch.Range(unsafe.Pointer(unsafe.StringData(n)), uintptr(len(n)))
			}
			m := order[i]
			var l []OutRel
			if m.kind == kindBound {
				l = ctx.bound.rels
			} else {
				l = keptList(runs, last.of(m.relSec)-1, done)
			}
			if len(l) > 0 {
				ready[i].l = l
				size += len(m.relKind().prefix) + len(ctx.Secs[m.tgt].Name)
			}
		}
		buf := make([]byte, 0, size)
		for i := lo; i < hi; i++ {
			if len(ready[i].l) == 0 {
				continue
			}
			m := order[i]
			start := len(buf)
			buf = append(append(buf, m.relKind().prefix...), ctx.Secs[m.tgt].Name...)
			name := unsafe.String(unsafe.SliceData(buf[start:]), len(buf)-start)
			ready[i].name, ready[i].h = name, ctx.ShStr.hash(name)
		}
		bufs[b] = buf
		if lookup {
			// The names' offsets where .shstrtab has them (nothing adds
			// to it meanwhile), so that the serial section making looks
			// up only the rest.
			for i := lo; i < hi; i++ {
				if a := i + 16; a < hi && ready[a].h != 0 {
					ctx.ShStr.prefetchSlot(ready[a].h)
				}
				if a := i + 8; a < hi && ready[a].h != 0 {
					ctx.ShStr.prefetchFirst(ready[a].h)
				}
				if r := &ready[i]; r.h != 0 {
					r.off = ctx.ShStr.slots[ctx.ShStr.find(r.name, r.h)].off
				}
			}
		}
		return nil
	})
	for _, b := range bufs {
		if cap(b) > 0 {
			ctx.pin(unsafe.Pointer(unsafe.SliceData(b)))
		}
	}
	return ready
}

// relSecsDirect reports whether newRelSection enters a relocation
// section's name in .shstrtab itself, by the hash prepareRelSecs made
// (merge has noted every section name and its string queue is closed),
// and so whether prepareRelSecs looks the names up.
func (ctx *Context) relSecsDirect() bool { return ctx.secNamesDone && ctx.strq == nil }

// newRelSection is newSection of the relocation section r prepared, of
// kind k: past layout (no section names noted) and merge's string queue,
// with the name's .shstrtab hash prepareRelSecs made.
func (ctx *Context) newRelSection(r *relSecReady, k relKind) *OutSec {
	s := ctx.allocSec()
	genSection(s, r.name, k.typ, 0, 8, uint16(k.ent))
	if !ctx.relSecsDirect() {
		ctx.addSection(s)
		return s
	}
	s.ID = int32(len(ctx.Secs))
	ctx.Secs = appendRecord(ctx.Secs, s)
	if s.nameOff = r.off; r.off == 0 {
		s.nameOff = ctx.ShStr.putHashed(r.name, r.h, false)
	}
	return s
}

// relRun is a run of kept relocations of one output section (and kind):
// done[obj].rels[lo:hi], after the run prev (-1: none) in the list.
type relRun struct {
	obj, lo, hi, prev int32
}

// keptList is the output list of the section whose last run is last (-1:
// none): its runs from the last back, each reversed (nvlink prepends). A
// list of one run (code from one object, the usual case) is that run,
// reversed where relocateObject put it; one of several is gathered.
func keptList(runs []relRun, last int32, done []objRelocs) []OutRel {
	if last < 0 {
		return nil
	}
	if r := runs[last]; r.prev < 0 {
		l := done[r.obj].rels[r.lo:r.hi:r.hi]
		slices.Reverse(l)
		return l
	}
	n := 0
	for i := last; i >= 0; i = runs[i].prev {
		n += int(runs[i].hi - runs[i].lo)
	}
	l := make([]OutRel, 0, n)
	for i := last; i >= 0; i = runs[i].prev {
		r := runs[i]
		rels := done[r.obj].rels
		for j := r.hi - 1; j >= r.lo; j-- {
			l = append(l, rels[j])
		}
	}
	return l
}

// Kinds of output relocation section: kept relocations as RELA, as REL
// (ptxas writes REL before sm_90), and under --preserve-relocs the ones
// applied at link time.
const (
	kindRela = iota
	kindRel
	kindResolved
	nRelKinds
	// kindBound is a kernel's .rel.nv.constant0.<k> for its bound
	// references (REL; its list is boundRefs.rels, not a kept one).
	kindBound = nRelKinds
)

// relKind names and types a kind's sections.
type relKind struct {
	prefix string
	typ    uint32
	ent    uint64
}

// relKinds names and types each kind's sections.
var relKinds = [nRelKinds]relKind{
	kindRela:     {".rela", elf.SHTRela, elf.RelaSize},
	kindRel:      {".rel", elf.SHTRel, elf.RelSize},
	kindResolved: {resolvedRela, elf.SHTCudaResolvedRela, elf.RelaSize},
}

// relSec is a relocation section to create: the one of that kind for
// target section tgt.
type relSec struct {
	tgt  int32
	kind uint8
}

// relSecMade is a relocation section to create, with the input
// relocation section whose note asked for it first (obj -1: none), whose
// name it usually has.
type relSecMade struct {
	relSec
	obj, in int32
}

// relKind names and types the section m makes (a bound references' one:
// REL).
func (m *relSecMade) relKind() relKind {
	if m.kind == kindBound {
		return relKinds[kindRel]
	}
	return relKinds[m.kind]
}

// lastRuns is, by kind and target section, 1 + the index of the last run
// of a list (0: none). A kind's table (4 bytes an output section) is made
// when it first has a run: most links keep relocations of one kind.
type lastRuns [nRelKinds][]int32

// at is where k's last run is noted, among nsec output sections.
func (l *lastRuns) at(k relSec, nsec int) *int32 {
	if l[k.kind] == nil {
		l[k.kind] = make([]int32, nsec)
	}
	return &l[k.kind][k.tgt]
}

// of is 1 + the index of k's last run (0: none).
func (l *lastRuns) of(k relSec) int32 {
	if t := l[k.kind]; t != nil {
		return t[k.tgt]
	}
	return 0
}

// relEvent is what relocating one object tells the serial replay, in the
// object's order: a relocation section now needed (note), or a run of
// relocations kept for a section's list (objRelocs.rels[lo:hi]). A note's
// lo is the input relocation section that asked for it.
type relEvent struct {
	tgt    int32 // the section: relSec's fields (flat: 16 bytes, not 20)
	kind   uint8
	note   bool
	lo, hi int32
}

// key is the relocation section the event is for.
func (ev *relEvent) key() relSec { return relSec{ev.tgt, ev.kind} }

// boundSecs is the number of bound references' relocation sections.
func boundSecs(ctx *Context) int {
	n := 0
	if b := ctx.bound; b != nil {
		for _, banks := range b.banks {
			n += len(banks)
		}
	}
	return n
}

// objRelocs is what relocating one object returns: its events, the
// relocations it keeps (the runs' backing: the output lists of one run
// are slices of it), and the error that stopped it.
type objRelocs struct {
	evs  []relEvent
	rels []OutRel
	err  error
}

// relocScratch is a thread's scratch while relocate runs: the buffers
// an object's lists gather in, and the slabs their copies are carved
// from (carve).
type relocScratch struct {
	evs     []relEvent
	rels    []OutRel
	evSlab  []relEvent
	relSlab []OutRel
}

// relocBlock is the number of objects one task of relocate relocates,
// counting their runs and notes together (relCounts).
const relocBlock = 64

// relCounts counts the runs and notes of a block of objects' events:
// relocate sizes its replay's arrays by their sums.
type relCounts struct{ runs, notes int }

// relocBuild is an object's objRelocs while relocateSection adds to it,
// with the count of runs and notes among its events.
type relocBuild struct {
	objRelocs
	nruns, nnotes int
}

// keep appends rel to the relocations kept for section k: to the run
// last began, when that is k's and ends here, else in a new run.
func (or *relocBuild) keep(k relSec, rel OutRel, last *int) {
	or.rels = append(or.rels, rel)
	n := int32(len(or.rels))
	if *last >= 0 && or.evs[*last].key() == k && or.evs[*last].hi == n-1 {
		or.evs[*last].hi = n
		return
	}
	*last = len(or.evs)
	or.evs = append(or.evs, relEvent{tgt: k.tgt, kind: k.kind, lo: n - 1, hi: n})
	or.nruns++
}

// note appends the notes of sections ks, asked for by input relocation
// section in.
func (or *relocBuild) note(in int32, ks ...relSec) {
	for _, k := range ks {
		or.evs = append(or.evs, relEvent{note: true, tgt: k.tgt, kind: k.kind, lo: in})
	}
	or.nnotes += len(ks)
}
