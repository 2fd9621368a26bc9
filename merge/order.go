package merge

// The deterministic ordering stage: final section order (orderSections,
// by bucket) and symbol table indices (indexSymbols), with the rules for
// what the output drops (empty sections, unified tables).
// Invariant: sections are in nvlink's bucket order, stable by creation
// order inside a bucket; symbols are null, locals, then globals.

import (
	"cmp"
	"slices"

	"github.com/warplink/warplink/elf"
)

// order is the deterministic ordering stage: the final section order
// (orderSections, then Release.InputOrder's reorderByInput) and the
// symbol table indices (indexSymbols); then, under -v, the report of the
// link's properties, which names them. It runs after finalize's
// diagnostics too, as the -v report does in nvlink.
func order(ctx *Context) error {
	infos, graphs := orderSections(ctx)
	reorderByInput(ctx)
	indexSymbols(ctx)
	encodeInfo(ctx, infos)
	encodeCallgraph(ctx, graphs)
	if ctx.Opts.Verbose {
		reportProperties(ctx)
	}
	return nil
}

// bucket is a section's place in nvlink's output order.
func bucket(s *OutSec) int {
	switch {
	case s.Type == elf.SHTRela || s.Type == elf.SHTRel || s.Type == elf.SHTCudaResolvedRela:
		return 1
	case s.Flags&elf.SHFAlloc == 0:
		return 0
	case s.Flags&elf.SHFExecInstr != 0:
		return 3
	case s.Flags&elf.SHFWrite != 0:
		return 4
	default:
		return 2
	}
}

// empty reports sections nvlink drops from the output.
// An input section stays even when empty (nvlink keeps an empty
// .debug_frame, for one).
func (s *OutSec) empty() bool {
	// Empty NOBITS sections go (module-scope shared memory laid out per
	// entry leaves .nv_debug.shared empty) unless marked to stay.
	return s.Dead || (s.Size == 0 && !s.keep && (len(s.Pieces()) == 0 || s.Nobits) &&
		len(s.relocs()) == 0 && !s.gen.contents())
}

// orderSections assigns final section indices: the fixed four first, then
// the buckets in order, each stable-sorted by section type (so writable
// PROGBITS data precedes NOBITS data). It returns, from the same walk over
// every section, the sections whose contents wait for the symbols'
// indices, in creation order: .nv.info (encodeInfo; each .nv.info.<f>
// keeps its compact form until write copies it: compactInfo) and those
// with a call graph or prototypes (encodeCallgraph).
func orderSections(ctx *Context) (infos, graphs []int32) {
	// A stable counting sort by (bucket, type); relocation sections
	// (bucket 1) stay in creation order whatever their type. The keys are
	// few (a dozen): each section keeps the index of its key in a short
	// list, and nothing is allocated per section but that index and the
	// order. (This runs when the heap is near its limit, where every
	// allocation helps the collector.)
	key := func(s *OutSec) uint64 {
		b := uint64(bucket(s))
		if b == 1 {
			return b << 32
		}
		return b<<32 | uint64(s.Type)
	}
	var keys []uint64
	var count []int
	keyOf := make([]int32, len(ctx.Secs)) // index into keys; -1: empty
	live, last := 0, -1
	infos = elf.SliceOf[int32](len(ctx.Secs), ctx.lateScratch)[:0]
	for i, s := range ctx.Secs {
		if s.Type == elf.SHTCudaInfo && s.gen != nil {
			infos = append(infos, int32(i))
		}
		if s.gen.contents() {
			graphs = append(graphs, int32(i))
		}
		if s.empty() {
			s.Dead = true
			keyOf[i] = -1
			continue
		}
		k := key(s)
		if last < 0 || keys[last] != k {
			if last = slices.Index(keys, k); last < 0 {
				keys, count = append(keys, k), append(count, 0)
				last = len(keys) - 1
			}
		}
		keyOf[i] = int32(last)
		count[last]++
		live++
	}
	// Where each key's sections start, keys in ascending order.
	byKey := make([]int, len(keys))
	for j := range byKey {
		byKey[j] = j
	}
	slices.SortFunc(byKey, func(a, b int) int { return cmp.Compare(keys[a], keys[b]) })
	next := make([]int, len(keys))
	at := 0
	for _, j := range byKey {
		next[j], at = at, at+count[j]
	}
	// Past SHN_LORESERVE sections, symbols name their section through
	// .symtab_shndx, which nvlink places right after .symtab.
	ctx.fixed = 4
	if 4+live >= elf.SHNLoReserve {
		ctx.fixed = 5
	}
	ctx.Order = slices.Grow(ctx.Order[:0], live)[:live]
	for i, j := range keyOf {
		if j < 0 {
			keyOf[i] = 0 // (not written)
			continue
		}
		keyOf[i] = int32(ctx.fixed + next[j])
		ctx.Order[next[j]] = int32(i)
		next[j]++
	}
	ctx.secIndex = keyOf // (each key replaced by the index it gives)
	return infos, graphs
}

// symIndexOf is output symbol id's .symtab index (OutSym.Index, from
// order on; -1: not written), from the dense Context.symIndex.
func (ctx *Context) symIndexOf(id int32) int {
	if int(id) < len(ctx.symIndex) {
		return int(ctx.symIndex[id])
	}
	return ctx.Syms[id].Index
}

// sectionIndex is output section id's index in the section header table
// (0 when it is not written, or before order).
func (ctx *Context) sectionIndex(id int32) int {
	if int(id) < len(ctx.secIndex) {
		return int(ctx.secIndex[id])
	}
	return 0
}

// indexSymbols assigns .symtab indices: null, live locals, then globals
// (OutSym.Index, and Context.symIndex by ID).
func indexSymbols(ctx *Context) {
	byID := elf.SliceOf[int32](len(ctx.Syms), ctx.lateKeep) // (zeroed: 0 for a symbol in neither list)
	idx := 1
	at := ctx.symAt[:0]
	at = append(at, 0) // (index 0, the null symbol: from the start)
	// (A section is dead now exactly when orderSections gave it no index:
	// the dense indices are read, not each section's cold record.)
	secIndex := ctx.secIndex
	for k, id := range ctx.Locals {
		s := ctx.Syms[id]
		if s.dead || (s.Sec >= 0 && secIndex[s.Sec] == 0) || ctx.dropsSym(s) {
			s.Index, byID[id] = -1, -1
			continue
		}
		if idx%symAtStride == 0 {
			at = append(at, int32(k))
		}
		s.Index, byID[id] = idx, int32(idx)
		idx++
	}
	ctx.firstGlobal = idx
	for k, id := range ctx.Globals {
		if s := ctx.Syms[id]; s.dead || ctx.dropsSym(s) {
			s.Index, byID[id] = -1, -1
		} else {
			if idx%symAtStride == 0 {
				at = append(at, int32(len(ctx.Locals)+k))
			}
			s.Index, byID[id] = idx, int32(idx)
			idx++
		}
	}
	ctx.nsyms, ctx.symAt, ctx.symIndex = idx, at, byID
}

// dropsSym: the release writes no symbol for s, which the link keeps.
func (ctx *Context) dropsSym(s *OutSym) bool {
	return ctx.Rel.DropUnifiedTables && s.Sec < 0 && unifiedTable(s.Name)
}

// unifiedTable reports whether name is one of the unified function and
// data table symbols ptxas 12.x declares (weak, undefined) in every sm_90
// object: __UFT, __UDT and their _OFFSET, _CANONICAL and _END forms
// (Release.DropUnifiedTables).
func unifiedTable(name string) bool {
	switch name {
	case "__UFT", "__UDT", "__UFT_OFFSET", "__UDT_OFFSET", "__UFT_CANONICAL", "__UDT_CANONICAL", "__UFT_END", "__UDT_END":
		return true
	}
	return false
}

// lastSingleConstant is the output symbol of the __constant__ variable of
// the last object (in file order) that defines exactly one in
// .nv.constant3, of 4 bytes or of 12 to 64, -1 when none does. Its output
// offset is what nvlink 11.8 leaves in the null symbol's st_value when it
// names TEMP_MERGED_CONSTANTS, an artifact of the value deduplication it
// runs then (4-byte values, and 12 to 64 bytes, are compared; 8-byte ones
// otherwise, larger ones not at all). Observed on links of one to four
// objects in every order, constants of 4 to 72 bytes and of 16 and 32 KiB
// (crafted merged-constants-null-symbol); the symbol's value is read by no
// consumer of the file.
func lastSingleConstant(ctx *Context) int32 {
	last := int32(-1)
	for _, o := range ctx.Objs {
		only, n := int32(-1), 0
		for i := range o.F.Symbols {
			s := &o.F.Symbols[i]
			if !isDataSym(s) || s.Shndx == elf.SHNUndef || int(s.Shndx) >= len(o.F.Sections) || !o.F.SecNameIs(int(s.Shndx), moduleConstants) {
				continue
			}
			n++
			if i < len(o.SymMap) {
				only, _ = o.outSymOf(uint32(i))
			}
		}
		if n == 1 && only >= 0 {
			if z := ctx.Syms[only].Size; z == 4 || z >= 12 && z <= 64 {
				last = only
			}
		}
	}
	return last
}
