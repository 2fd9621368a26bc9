package merge

// walkahead: merge's serial walk asks for each object's tables before it
// reaches them, and for the name-table slots of an object's sections before
// it looks them up.
//
// The walk reads every object's section headers, symbols and resolution
// IDs once, in file order, and looks up the names of about half its
// sections in secNames; each first read of those missed the caches (the
// inputs were parsed on other cores, long before), one miss after the
// other. Prefetches issued a few objects ahead let those misses overlap the
// walk instead. They are hints only: what the walk does, and so every
// output, is the same without them.

import (
	"unsafe"

	"github.com/warplink/warplink/internal/prefetch"
)

// walkHashes holds the secNames hashes of one object's section names,
// made as the walk reaches the object (hashObject), so that their slots are
// asked for before the first lookup, and the lengths of the names decoded
// so far, so that no step of the walk scans a name for its end again (the
// walk reads a section's name up to four times: its hash, its lookup, its
// relocation section's and .nv.info section's names). (Lengths, not
// strings: the entries hold no pointer to write.)
type walkHashes struct {
	o   *Obj
	h   []uint64 // by section index: hash | hashValid, | nameKnown | length<<nameLenShift; 0 where none is known
	tab []byte   // o.F.SecNameTable()
}

// hashValid marks a hash walkHashes made; nameKnown, a name's length
// (above nameLenShift).
const (
	hashValid    = 1 << 32
	nameKnown    = 1 << 33
	nameLenShift = 34
)

// prefetchAhead asks for what the walk reads of the objects after objs[k],
// in stages, each needing what the one before brought in: an object's
// record four ahead, its file's record three ahead, its tables and the
// start of its contents two ahead, and the section names, resolutions,
// string table and the sections mergeSectionRecords decodes of the next
// one.
func prefetchAhead(ctx *Context, objs []*Obj, k int) {
	prefetchObj(objs, k+4)
	prefetchFile(objs, k+3)
	if j := k + 2; j < len(objs) {
		f := objs[j].F
		prefetch.Slice(f.Sections)
		prefetch.Slice(f.Symbols)
		prefetch.Slice(objs[j].resID)
		prefetch.Slice(objs[j].relSecs)
		// (The start of .shstrtab, whose names hashObject reads: past
		// its end, a hint is harmless.)
		prefetch.Range(unsafe.Pointer(objs[j].shstrtab), 512)
	}
	if j := k + 1; j < len(objs) {
		o := objs[j]
		if i := int(o.F.Header.Shstrndx); i > 0 && i < len(o.F.Sections) {
			prefetch.Slice(o.F.Sections[i].Data())
		}
		// (What mergeSectionRecords reads: the names in .strtab, the
		// first .nv.info, call graph and prototype sections, the first
		// entries of each relocation section.)
		prefetch.Slice(o.strtab())
		o.prefetchFirst(0, o.infos, o.cg, o.proto)
		for _, r := range o.relSecs {
			if len(r.rels) > 0 {
				prefetch.Line(uintptr(unsafe.Pointer(&r.rels[0])))
			}
		}
		ctx.prefetchResolutions(o)
	}
}

// prefetchDrops asks for a line of drops, the next objects' Drop flags,
// a few objects ahead: the walk's first read of an object's flags, in
// hashObject, missed the caches. (An object has tens of them; the lines
// before were asked for by the objects before.)
func prefetchDrops(drops []bool) {
	if len(drops) > 0 {
		prefetch.Line(uintptr(unsafe.Pointer(&drops[min(len(drops)-1, 32)])))
	}
}

// The stages the passes' look-ahead (prefetchAhead, gatherAhead,
// prefetchObject, prefetchSymbols, prefetchRelocs) share.

// prefetchObj asks for objs[j]'s record, if there is an objs[j].
func prefetchObj(objs []*Obj, j int) {
	if j < len(objs) {
		prefetch.Range(unsafe.Pointer(objs[j]), unsafe.Sizeof(Obj{}))
	}
}

// prefetchFile asks for objs[j]'s file record, if there is an objs[j]
// (whose record an earlier stage asked for).
func prefetchFile(objs []*Obj, j int) {
	if j < len(objs) {
		prefetch.Range(unsafe.Pointer(objs[j].F), unsafe.Sizeof(*objs[j].F))
	}
}

// prefetchRelocs asks for what relocating the objects after objs[k]
// reads, in stages, each from what the one before brought in: an
// object's record five objects ahead; its file record, relocation
// section list and symbol and section maps four ahead; its section
// table and relocations three ahead; each relocation section's target
// output section record (the line of its Dead flag), and each
// relocation's input symbol two ahead; the output symbol records they
// map to one ahead. (Relocating an object is a chain of such misses
// otherwise, one after the other.) Hints only.
func prefetchRelocs(ctx *Context, objs []*Obj, k int) {
	prefetchObj(objs, k+5)
	prefetchFile(objs, k+4)
	if j := k + 4; j < len(objs) {
		o := objs[j]
		prefetch.Slice(o.relSecs)
		prefetch.Slice(o.SecMap)
		prefetch.Slice(o.SymMap)
	}
	if j := k + 3; j < len(objs) {
		o := objs[j]
		prefetch.Slice(o.F.Sections)
		for _, d := range o.relSecs {
			prefetch.Slice(d.rels)
		}
	}
	if j := k + 2; j < len(objs) {
		o := objs[j]
		for _, d := range o.relSecs {
			if t := o.F.Sections[d.si].Info; int(t) < len(o.SecMap) {
				if m := o.SecMap[t]; m >= 0 && int(m) < len(ctx.Secs) {
					prefetch.Line(uintptr(unsafe.Pointer(ctx.Secs[m])) + unsafe.Offsetof(OutSec{}.Dead))
				}
			}
			for _, r := range d.rels {
				if int(r.Sym) < len(o.F.Symbols) {
					prefetch.Line(uintptr(unsafe.Pointer(&o.F.Symbols[r.Sym])))
				}
			}
		}
	}
	if j := k + 1; j < len(objs) {
		o := objs[j]
		for _, d := range o.relSecs {
			for _, r := range d.rels {
				if int(r.Sym) < len(o.SymMap) {
					if m := o.SymMap[r.Sym]; m >= 0 && int(m) < len(ctx.Syms) {
						prefetch.Range(unsafe.Pointer(ctx.Syms[m]), unsafe.Sizeof(OutSym{}))
					}
				}
			}
		}
	}
}

// prefetchFirst asks for the contents of the first section of each kind
// in ts that o has: their first limit bytes (0: all of them).
func (o *Obj) prefetchFirst(limit int, ts ...typedSecs) {
	for _, t := range ts {
		if i := t.first(); t != 0 && i < len(o.F.Sections) {
			d := o.F.Sections[i].Data()
			if limit > 0 {
				d = d[:min(len(d), limit)]
			}
			prefetch.Slice(d)
		}
	}
}

// prefetchResolutions asks for the resolution records of o's symbols.
func (ctx *Context) prefetchResolutions(o *Obj) {
	for _, id := range o.resID {
		if id >= 0 && int(id) < len(ctx.Res) {
			prefetch.Line(uintptr(unsafe.Pointer(&ctx.Res[id])))
		}
	}
}

// hashObject makes the secNames hashes of o's section names that the walk
// may look up (those of sections it copies) and asks for their slots.
func (ctx *Context) hashObject(o *Obj) {
	w := &ctx.walk
	n := len(o.F.Sections)
	if cap(w.h) < n {
		w.h = make([]uint64, max(n, 64))
	}
	w.o, w.h, w.tab = o, w.h[:n], o.F.SecNameTable()
	for i := range o.F.Sections {
		s := &o.F.Sections[i]
		if i == 0 || regenerated(s) || o.Drop[i] {
			w.h[i] = 0
			continue
		}
		name := o.F.SecName(i)
		h := secNameHash(name)
		w.h[i] = uint64(h) | hashValid | nameKnown | uint64(len(name))<<nameLenShift
		ctx.secNames.prefetch(h)
	}
}

// sectionHash is the name of input section i of o and its secNames hash.
func (ctx *Context) sectionHash(o *Obj, i int) (string, uint32) {
	if w := &ctx.walk; w.o == o && i >= 0 && i < len(w.h) && w.h[i]&hashValid != 0 {
		return ctx.secName(o, i), uint32(w.h[i])
	}
	name := ctx.secName(o, i)
	return name, secNameHash(name)
}

// secName is o.F.SecName(i), without scanning the name for its end again
// when o is the object the walk is at and the walk decoded it before.
func (ctx *Context) secName(o *Obj, i int) string {
	w := &ctx.walk
	if w.o != o || i < 0 || i >= len(w.h) {
		return o.F.SecName(i)
	}
	if v := w.h[i]; v&nameKnown != 0 {
		if n := int(v >> nameLenShift); n > 0 {
			return unsafe.String(&w.tab[o.F.Sections[i].NameOff], n)
		}
		return ""
	}
	name := o.F.SecName(i)
	w.h[i] |= nameKnown | uint64(len(name))<<nameLenShift
	return name
}
