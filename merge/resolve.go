package merge

// resolve: decide, for every global or weak name, which definition wins.
//
// Inputs: Context.Objs (parsed). Outputs: Context.Res (each name's
// Resolution at its record ID, some slots unused) and the conflict
// diagnostics.
// Invariants: names are sharded by MurmurHash3 into owner goroutines
// (shard.Fold); each owner receives exactly one batch per (file, shard) and
// folds the batches in file order with the pure function shard.Resolve, so
// the result equals a serial link's whatever the shard or thread count.

import (
	"context"
	"math"
	"slices"
	"sort"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/prefetch"
	"github.com/warplink/warplink/shard"
)

// candidate is what a file tells a shard owner about one global name,
// with the name's hash (shard.Murmur3String), which the producer made to
// pick the shard and the owner's index reuses.
type candidate struct {
	name string
	c    shard.Cand
	h    uint32
}

// shardState is one owner's table: the standing record of each name and
// the diagnostics raised, in fold order.
type shardState struct {
	index nameIndex // name -> recs
	recs  []shardRec
	diags []shardDiag
	// The ID of record k is k*stride+shard: its index in Context.Res
	// (collectResolutions), given to the entries as they are folded.
	shard, stride int32
}

type shardRec struct {
	sym   shard.Sym
	name  string
	other uint8 // st_other bits gathered over every appearance
}

type shardDiag struct {
	name string
	d    shard.Diag
	file int32 // file being folded when raised
	data bool  // raised by a data symbol (nvlink merges those after functions)
	idx  int32
}

func candidateOf(ctx *Context, o *Obj, i int) shard.Cand {
	s := &o.F.Symbols[i]
	c := shard.Cand{File: int32(o.ID), Index: int32(i), Func: s.Type() == elf.STTFunc,
		Weak: s.Bind() == elf.STBWeak, Other: s.Other, Size: s.Size, PTXVersion: o.F.Header.Version}
	if !c.Func {
		// ptxas writes data's memory space in st_other's top bits, on
		// definitions and declarations alike (nvcc 11.8: __device__ 0x20,
		// __constant__ 0x80), and nvlink compares them.
		c.Space = s.Other >> 5
	}
	switch {
	case s.Shndx == elf.SHNUndef:
		c.Kind = shard.Undef
	case s.Shndx == elf.SHNCommon:
		c.Kind = shard.Common
	default:
		c.Kind = shard.Defined
		if int(s.Shndx) < len(o.F.Sections) {
			c.Init = o.F.Sections[s.Shndx].Type == elf.SHTCudaGlobalInit
		}
	}
	if c.Func && c.Weak {
		// nvlink 11.8 compares the register count ptxas keeps in the high
		// byte of the code section's sh_info (sm_80 and older write it;
		// sm_90 cubins leave it 0, so the first definition stays). The
		// seeds' nvlink 13 also falls back to EIATTR_REGCOUNT.
		if ctx.Opts.WeakRule == "regcount" {
			if r := regCount(o, i); r > 0 {
				c.RegCount = uint32(r)
			}
		} else if int(s.Shndx) < len(o.F.Sections) {
			c.RegCount = o.F.Sections[s.Shndx].Info >> 24
		}
	}
	return c
}

// regCount is a function's register count: the high byte of its .text
// sh_info, else its EIATTR_REGCOUNT record (nvlink 13's fallback scan).
func regCount(o *Obj, i int) int32 {
	s := &o.F.Symbols[i]
	if int(s.Shndx) < len(o.F.Sections) {
		if r := o.F.Sections[s.Shndx].Info >> 24; r != 0 {
			return int32(r)
		}
	}
	r := int32(-1)
	var buf [infoBuf]elf.Attr
	o.eachInfoSection(func(j int, sec *elf.Section) {
		if r >= 0 || !o.F.SecNameIs(j, ".nv.info") {
			return
		}
		attrs := o.info(j, buf[:0])
		for k := range attrs {
			if a := &attrs[k]; a.Code == elf.EIAttrRegcount && a.U32(0) == uint32(i) {
				r = int32(a.U32(4))
				return
			}
		}
	})
	return r
}

func resolve(ctx *Context) error {
	dropUnusedSystemObjects(ctx)
	t := ctx.objTotals()
	nsym := allocResIDs(ctx, t.syms)
	nshards := shardsFor(resolveShards(ctx), nsym)
	produce := func(file int, emit func(shard int, batch []candidate)) error {
		produceCandidates(ctx, file, nshards, emit)
		return nil
	}
	// Sized for half the global entries being distinct names (generated
	// links: 14,476 names for 28,094 entries at 10,000 objects, 135,678
	// for 266,096 at 100,000); a shard's table grows past that when it
	// must.
	perShard := t.globals/nshards/2 + 8
	newState := func(k int) shardState {
		return shardState{index: newNameIndex(perShard), recs: make([]shardRec, 0, perShard),
			shard: int32(k), stride: int32(nshards)}
	}
	fold := func(st *shardState, file int, batch []candidate) {
		foldCandidates(st, ctx.Objs[file].resID, file, batch)
	}
	states, err := shard.Fold(context.Background(), len(ctx.Objs), nshards, ctx.Opts.Threads, produce, newState, fold)
	if err != nil {
		return err
	}
	diags := collectResolutions(ctx, states)
	return reportConflicts(ctx, diags)
}

// resolveShards is the number of shards names are spread over.
func resolveShards(ctx *Context) int {
	nshards := ctx.Opts.Shards
	if nshards <= 0 {
		// One owner per thread: enough to spread the folding, few enough
		// that the (file, shard) messages stay cheap (at 10,000 objects on
		// two cores: 16 shards took twice as long as 4, and 4 about 20 %
		// longer than 2).
		nshards = min(workers(ctx.Opts.Threads), 64)
	}
	return min(nshards, 1<<16) // (shard numbers are kept in 16 bits below)
}

// shardsFor is nshards, or fewer for a link of nsym symbols whose record
// IDs (k*nshards+shard, k below nsym) would not fit in an int32.
func shardsFor(nshards, nsym int) int {
	return min(nshards, max(1, math.MaxInt32/max(nsym, 1)))
}

// allocResIDs gives every object its resID slice (all -1), carved from
// one array of nsym entries (the objects' symbols together,
// Context.totals: more is harmless; too few, and the objects from the
// first that does not fit get an array of their own), and returns the
// objects' symbols counted. Every global entry learns its name's record
// ID from the shard's owner (one writer per entry).
func allocResIDs(ctx *Context, nsym int) int {
	var ids []int32
	total := 0
	for k, o := range ctx.Objs {
		n := len(o.F.Symbols)
		total += n
		if n > len(ids) {
			// (The first object with symbols, or Context.totals out of
			// step with the objects: a safeguard. Arrays for the objects
			// from k on.)
			if ids != nil {
				nsym = objTotalsOf(ctx.Objs[k:]).syms
			}
			nsym = max(nsym, n)
			ids = make([]int32, nsym)
			ctx.objArrays.resID = append(ctx.objArrays.resID, ids)
			for i := range ids {
				ids[i] = -1
			}
		}
		o.resID, ids = ids[:n:n], ids[n:]
	}
	return total
}

// produceCandidates sends each shard one batch of file's global symbols.
//
// NOTE: runs concurrently, one call per file.
func produceCandidates(ctx *Context, file, nshards int, emit func(shard int, batch []candidate)) {
	// The file's batches share one array, grouped by shard.
	prefetchSymbols(ctx.Objs, file)
	o := ctx.Objs[file]
	batches := newLists[candidate](nshards)
	// (The names' hashes, kept between the two loops, their shards
	// derived again: on the stack for the usual object, of a few tens of
	// symbols; a larger array would be cleared at every call.)
	var hbuf [32]uint32
	hashes := hbuf[:]
	if len(o.F.Symbols) > len(hbuf) {
		hashes = make([]uint32, len(o.F.Symbols))
	}
	for i := 1; i < len(o.F.Symbols); i++ {
		s := &o.F.Symbols[i]
		if s.Bind() == elf.STBLocal {
			continue
		}
		hashes[i] = shard.Murmur3String(s.Name)
		batches.count(int32(shard.ShardOf(hashes[i], nshards)))
	}
	batches.place()
	for i := 1; i < len(o.F.Symbols); i++ {
		if s := &o.F.Symbols[i]; s.Bind() != elf.STBLocal {
			batches.put(int32(shard.ShardOf(hashes[i], nshards)), candidate{s.Name, candidateOf(ctx, o, i), hashes[i]})
		}
	}
	batches.done()
	for k := range nshards {
		emit(k, batches.of(int32(k)))
	}
}

// prefetchSymbols asks for what produceCandidates reads of the files
// after file k, in stages, each needing what the one before brought in: a
// file's object record four ahead, its file record three ahead, its
// symbols and section headers two ahead, its names one ahead (whose
// string table's header the stage before asked for). A producer takes
// files in groups of consecutive ones. Hints only.
func prefetchSymbols(objs []*Obj, k int) {
	prefetchObj(objs, k+4)
	prefetchFile(objs, k+3)
	if j := k + 2; j < len(objs) {
		f := objs[j].F
		prefetch.Slice(f.Symbols)
		prefetch.Slice(f.Sections)
	}
	if j := k + 1; j < len(objs) {
		names := objs[j].strtab()
		prefetch.Slice(names[:min(len(names), 2048)])
	}
}

// foldCandidates folds file's batch into a shard's state, writing each
// entry's record ID (shardState.stride) to resID.
//
// NOTE: runs on the shard's owner goroutine.
func foldCandidates(st *shardState, resID []int32, file int, batch []candidate) {
	// (A file's batch holds a few names: their slots are asked for
	// together, then the records those hold, so that their misses
	// overlap.)
	for i := range min(len(batch), foldAhead) {
		st.index.prefetch(batch[i].h)
	}
	for i := range min(len(batch), recAhead) {
		st.index.prefetchRec(st.recs, batch[i].h)
	}
	for i, cd := range batch {
		if j := i + foldAhead; j < len(batch) {
			st.index.prefetch(batch[j].h)
		}
		if j := i + recAhead; j < len(batch) {
			st.index.prefetchRec(st.recs, batch[j].h)
		}
		slot := st.index.find(st.recs, cd.name, cd.h)
		k := st.index.rec(slot)
		if k < 0 {
			k = int32(len(st.recs))
			resID[cd.c.Index] = k*st.stride + st.shard
			st.recs = append(st.recs, shardRec{sym: shard.NewSym(cd.c), name: cd.name, other: cd.c.Other & shard.OtherAddrTaken})
			st.index.insert(slot, cd.h, k)
			continue
		}
		resID[cd.c.Index] = k*st.stride + st.shard
		rec := &st.recs[k]
		rec.other |= cd.c.Other & shard.OtherAddrTaken
		out := shard.Resolve(rec.sym, cd.c)
		for i := 0; i < int(out.NDiag); i++ {
			st.diags = append(st.diags, shardDiag{cd.name, out.Diags[i], int32(file), !cd.c.Func, cd.c.Index})
		}
		rec.sym = out.Sym
	}
}

// nameIndex is a shard owner's index of names: open addressing over the
// names' hashes, each slot the hash and the record (in shardState.recs,
// whose name is compared on equal hashes). The producer's hash serves, so
// no name is hashed twice; the records' order, and so the resolution, is
// the order of first appearance whatever the slots. A slot is the hash's
// low bits: they spread a shard's names since shard.ShardOf picks the
// shard by the high bits (the same low bits for a whole shard would make
// one long probe chain).
type nameIndex struct {
	slots []hashSlot // a power of two long; ref: the record's index + 1
	n     int        // names held
}

// newNameIndex returns an index for about n names.
func newNameIndex(n int) nameIndex {
	size := 16
	for size*7/10 < n {
		size *= 2
	}
	return nameIndex{slots: make([]hashSlot, size)}
}

// find returns the slot of name (hash h), or the empty slot where it would
// go.
func (x *nameIndex) find(recs []shardRec, name string, h uint32) int {
	mask := len(x.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := &x.slots[i]
		if e.ref == 0 || e.hash == h && recs[e.ref-1].name == name {
			return i
		}
	}
}

// prefetch asks for the first slot of a name of hash h.
func (x *nameIndex) prefetch(h uint32) {
	prefetch.Line(uintptr(unsafe.Pointer(&x.slots[int(h)&(len(x.slots)-1)])))
}

// prefetchRec asks for the record a name of hash h has in its first
// slot, if that slot holds a name of that hash (a hint).
func (x *nameIndex) prefetchRec(recs []shardRec, h uint32) {
	if e := x.slots[int(h)&(len(x.slots)-1)]; e.ref != 0 && e.hash == h && int(e.ref) <= len(recs) {
		prefetch.Line(uintptr(unsafe.Pointer(&recs[e.ref-1])))
	}
}

// foldAhead and recAhead are how many candidates ahead foldCandidates
// asks for slots, and for the records in them.
const (
	foldAhead = 8
	recAhead  = 4
)

// rec is the record in slot, or -1 when the slot is empty.
func (x *nameIndex) rec(slot int) int32 { return x.slots[slot].ref - 1 }

// insert files record rec (hash h) in slot, the empty slot find returned,
// and doubles the index past 0.7 of its slots.
func (x *nameIndex) insert(slot int, h uint32, rec int32) {
	x.slots[slot] = hashSlot{h, rec + 1}
	x.n++
	if x.n*10 > len(x.slots)*7 {
		x.slots = refile(x.slots, 2*len(x.slots))
	}
}

// collectResolutions lays the shards' records out as ctx.Res, record k of
// shard j at k*len(states)+j (the IDs the entries were given: slots past
// a shard's last record stay unused), and returns the shards'
// diagnostics.
func collectResolutions(ctx *Context, states []shardState) []shardDiag {
	most, names := 0, 0
	for _, st := range states {
		most = max(most, len(st.recs))
		names += len(st.recs)
	}
	ctx.resNames = names
	stride := len(states)
	ctx.Res = make([]Resolution, most*stride)
	var diags []shardDiag
	for j, st := range states {
		for k := range st.recs {
			rec := &st.recs[k]
			r := &ctx.Res[k*stride+j]
			r.File, r.Index, r.Other, r.sym = -1, -1, rec.other, -1
			if s := &rec.sym; s.Kind != shard.Undef {
				r.File, r.Index, r.Size = s.File, s.Index, s.Size
			}
		}
		diags = append(diags, st.diags...)
	}
	return diags
}

// reportConflicts reports the conflicts of the first file that raised
// any, in the order a serial link would raise them, and stops the link
// after them as nvlink does.
func reportConflicts(ctx *Context, diags []shardDiag) error {
	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].file != diags[j].file {
			return diags[i].file < diags[j].file
		}
		if diags[i].data != diags[j].data {
			return !diags[i].data
		}
		return diags[i].idx < diags[j].idx
	})
	// nvlink stops merging after the first file that raised a conflict.
	for k := range diags {
		if diags[k].file != diags[0].file {
			diags = diags[:k]
			break
		}
	}
	for k, d := range diags {
		msg := d.d.Code.Format()
		key := diag.At(diag.PhaseResolve, int(d.file), k)
		in := ctx.Objs[d.d.File].Name
		switch d.d.Code.Files() {
		case 0:
			ctx.Diags.Errorf(key, msg, d.name)
		case 1:
			ctx.Diags.Errorf(key, msg, d.name, in)
		default:
			ctx.Diags.Errorf(key, msg, d.name, in, ctx.Objs[d.d.First].Name)
		}
	}
	if len(diags) > 0 {
		// nvlink stops after the file that raised a conflict.
		ctx.Diags.Fatalf(diag.At(diag.PhaseResolve, int(diags[len(diags)-1].file), 1<<30), "%s", mergeElfFailed)
		return errFatal
	}
	return nil
}

// dropUnusedSystemObjects leaves out the system-library objects
// (libcudadevrt) that define nothing the other objects reference: nvcc
// passes -lcudadevrt to every device link, and nvlink adds the device
// runtime only to programs that use it. File IDs are renumbered; nothing
// depends on them yet.
func dropUnusedSystemObjects(ctx *Context) {
	if ctx.Opts.KeepSystemLibraries || !slices.ContainsFunc(ctx.Objs, func(o *Obj) bool { return o.System }) {
		return
	}
	wanted := map[string]bool{}
	for _, o := range ctx.Objs {
		if !o.System {
			o.addUndefined(wanted)
		}
	}
	kept := ctx.Objs[:0]
	for _, o := range ctx.Objs {
		if o.System && !definesAny(o, wanted) {
			if ctx.totals != nil {
				ctx.totals.sub(o)
			}
			continue
		}
		o.ID = len(kept)
		kept = append(kept, o)
	}
	ctx.Objs = kept
}

// addUndefined adds the names of o's undefined globals to names.
func (o *Obj) addUndefined(names map[string]bool) {
	for i := range o.F.Symbols {
		if s := &o.F.Symbols[i]; s.Bind() != elf.STBLocal && s.Shndx == elf.SHNUndef && s.Name != "" {
			names[s.Name] = true
		}
	}
}

// definesAny reports whether o defines a global that names holds.
func definesAny(o *Obj, names map[string]bool) bool {
	for i := range o.F.Symbols {
		if s := &o.F.Symbols[i]; s.Bind() != elf.STBLocal && s.Shndx != elf.SHNUndef && names[s.Name] {
			return true
		}
	}
	return false
}
