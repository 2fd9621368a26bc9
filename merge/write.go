package merge

// write: assign file offsets and serialize the executable cubin.
//
// Inputs: finalized sections (Order, Index), symbols (Index), string tables.
// Outputs: the file, streamed to what Context.openOutput opens, told the
// file's size first (the link reserves its blocks: atomicfile.File.Reserve)
// (Context.Out holds it when there is none, or for --warplink-dump=write).
// Invariants: the layout is nvlink's: ELF header, .shstrtab, .strtab,
// .symtab, then the sections in index order, each at its alignment (NOBITS
// take no space), the section header table at the next multiple of 8 and the
// program headers right after it. Section bytes are copied in parallel into
// disjoint ranges of a bounded buffer and streamed out in file order; a
// section larger than a run goes out from its own memory when it is in one
// piece, else in run-sized parts. Every byte of a run is written (the
// buffers are reused).

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math/bits"
	"runtime"
	"strings"
	"unsafe"

	"github.com/warplink/warplink/actors"
	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/prefetch"
)

// shdr is a section header being written: where the section goes, and
// the output section whose other fields it takes (for the null section
// and the fixed ones, a stand-in holding them, the bytes in its Data).
type shdr struct {
	off, size  uint64
	link, info uint32
	sec        *OutSec
}

func write(ctx *Context) error {
	ctx.rewindLate() // (finalize's scratch tables: write's tables take their memory)
	hdrs, kinds, standIns := sectionHeaders(ctx)
	defer runtime.KeepAlive(standIns) // (hdrs may be memory the collector does not scan)
	defer func() { ctx.symOut = nil }()
	fl, err := layoutFile(ctx, hdrs, kinds)
	if err != nil {
		return err
	}
	encodeSymtab(ctx, &standIns[3], standIns[4].Data(), writeChunk(ctx, fl.total))
	sink, mem, err := writeSink(ctx, fl.total)
	if err != nil {
		return err
	}
	if err := emit(ctx, sink, hdrs, kinds, fl); err != nil {
		return err
	}
	if mem != nil {
		ctx.Out = mem.Bytes()
	}
	return nil
}

// sectionHeaders is the section header table, offsets not yet assigned:
// the null section, the fixed sections (.shstrtab, .strtab, .symtab and,
// past SHN_LORESERVE sections, .symtab_shndx; their contents are known
// once every symbol has an index, and nvlink adds their names first),
// then the sections in Context.Order, at index ctx.fixed onwards. The
// table is in the heap's free pages when it has room (heapRoom), else in
// the inputs' tables' memory when finalize reset it for reuse
// (lateMapped); the fixed sections' stand-ins, which only it points to,
// are returned to be kept alive while it is used. kinds holds what the
// layout and the writer's serial steps need of each section, its
// alignment too (hdrKind), so that those read no section record.
func sectionHeaders(ctx *Context) ([]shdr, []hdrKind, *[5]OutSec) {
	var shndx []byte
	if ctx.fixed == 5 {
		shndx = writeBuffer(ctx, ctx.nsyms*4, ctx.nsyms*4 >= arenaTablesFrom)
	}
	shstr := ctx.ShStr.Bytes()
	str := ctx.Str.Bytes()

	n, alloc := ctx.fixed+len(ctx.Order), elf.Alloc(ctx.lateMapped)
	if !ctx.lateResident(n*shdrBytes+n) && heapRoom(n*shdrBytes) {
		alloc = nil
	}
	hdrs := elf.SliceOf[shdr](n, alloc)
	kinds := elf.SliceOf[hdrKind](n, alloc)
	fixed := &[5]OutSec{
		{},
		{nameOff: ctx.ShStr.Add(".shstrtab"), Type: elf.SHTStrtab, Align: 1, body: shstr},
		{nameOff: ctx.ShStr.Add(".strtab"), Type: elf.SHTStrtab, Align: 1, body: str},
		{nameOff: ctx.ShStr.Add(".symtab"), Type: elf.SHTSymtab, Align: 8, entsize: elf.SymSize}, // (contents: encodeSymtab)
	}
	hdrs[0].sec = &fixed[0]
	hdrs[1] = shdr{sec: &fixed[1], size: uint64(len(shstr))}
	hdrs[2] = shdr{sec: &fixed[2], size: uint64(len(str))}
	hdrs[3] = shdr{sec: &fixed[3], size: uint64(ctx.nsyms) * elf.SymSize, link: 2, info: uint32(ctx.firstGlobal)}
	if ctx.fixed == 5 {
		fixed[4] = OutSec{nameOff: ctx.ShStr.Add(".symtab_shndx"), Type: elf.SHTSymtabShndx, Align: 4, entsize: 4, body: shndx}
		hdrs[4] = shdr{sec: &fixed[4], size: uint64(len(shndx)), link: 3}
	}
	for i := range ctx.fixed {
		kinds[i] = hdrKindOf(hdrs[i].sec, hdrs[i].size)
	}
	// Every header owns its slot: filled in parallel (the records'
	// first reads, which miss the caches, overlap; each asked for eight
	// sections ahead).
	parallelFor(len(ctx.Order), ctx.Opts.Threads, func(i int) error {
		if a := i + 8; a < len(ctx.Order) {
			prefetch.Range(unsafe.Pointer(ctx.Secs[ctx.Order[a]]), unsafe.Sizeof(OutSec{}))
		}
		s := ctx.Secs[ctx.Order[i]]
		kinds[ctx.fixed+i] = hdrKindOf(s, s.Size)
		var link, info uint32
		if s.LinkSymtab {
			link = 3
		}
		if s.Type == elf.SHTNote && s.Name == cuinfoName {
			// The note on the CUDA version links the toolkit notes, as in
			// every input that has both (nvlink 13.0's corpus outputs).
			if id, ok := ctx.secNamed(tkinfoName); ok && !ctx.Secs[id].Dead {
				link = uint32(ctx.sectionIndex(id))
			}
		}
		switch {
		case s.InfoSym >= 0 && ctx.symIndexOf(s.InfoSym) > 0:
			info = uint32(ctx.symIndexOf(s.InfoSym)) | uint32(s.InfoExtra)<<24
		case s.InfoSec >= 0:
			info = uint32(ctx.sectionIndex(s.InfoSec))
		}
		// (Stored field by field: a header made whole then copied was
		// read in 16-byte words right after its 4-byte fields were
		// stored, a stall at every section.)
		h := &hdrs[ctx.fixed+i]
		h.size, h.link, h.info, h.sec = s.Size, link, info, s
		return nil
	})
	return hdrs, kinds, fixed
}

// hdrKind is what the layout and the writer's serial steps need of a
// section header's section, one byte a header (sectionHeaders): reading
// each section's record again there cost a cache miss per section, one
// after the other.
type hdrKind uint8

const (
	hdrFilled hdrKind = 1 << iota // bytes in the file (not NOBITS, not empty): shdr.filled
	hdrNobits                     // SHT_NOBITS
	hdrAlloc                      // SHF_ALLOC
	hdrWrite                      // SHF_WRITE
	// The upper four bits hold the section's alignment (hdrKind.align):
	// its log2 when it is a power of two below 2^hdrAlignOther (0 for an
	// alignment of 0 or 1), else hdrAlignOther.
	hdrAlignShift = 4
	hdrAlignOther = 15
)

// align is the alignment of section s, whose kind k is (0 reads as 1):
// from k, or from s's record when k does not hold it. (layoutFile reads
// every section's alignment, programHeaders every SHF_ALLOC section's,
// whose records, cold by then, would cost a cache miss each.)
func (k hdrKind) align(s *OutSec) uint64 {
	if l := k >> hdrAlignShift; l != hdrAlignOther {
		return 1 << l
	}
	return max(s.Align, 1)
}

// hdrKindOf is the hdrKind of section s of size bytes.
func hdrKindOf(s *OutSec, size uint64) hdrKind {
	k := hdrKind(hdrAlignOther) << hdrAlignShift
	if a := max(s.Align, 1); a&(a-1) == 0 && a < 1<<hdrAlignOther {
		k = hdrKind(bits.TrailingZeros64(a)) << hdrAlignShift
	}
	if s.Nobits {
		k |= hdrNobits
	} else if size > 0 {
		k |= hdrFilled
	}
	if s.Flags&elf.SHFAlloc != 0 {
		k |= hdrAlloc
	}
	if s.Flags&elf.SHFWrite != 0 {
		k |= hdrWrite
	}
	return k
}

// fileEnd is where header h (of kind k) ends in the file: its bytes',
// or its offset for a section without any.
func fileEnd(h *shdr, k hdrKind) uint64 {
	if k&hdrFilled != 0 {
		return h.off + h.size
	}
	return h.off
}

// outputLayout is where the file's parts go: the section header table at
// shoff, the program headers (phdrs) at phoff, total bytes in all, and
// the ELF header that says so.
type outputLayout struct {
	shoff, phoff, total uint64
	phdrs               []elf.Prog
	header              elf.Header
}

// layoutFile assigns every section its file offset (hdrs[i].off), in
// index order at its alignment, NOBITS taking no space, and places the
// header tables after them. It refuses, before anything is written, a
// file that would reach Options.MaxOutputSize (maxOutputSize by default).
func layoutFile(ctx *Context, hdrs []shdr, kinds []hdrKind) (*outputLayout, error) {
	pos := uint64(elf.EhdrSize)
	limit := ctx.Opts.MaxOutputSize
	if limit == 0 {
		limit = maxOutputSize
	}
	var segs [2]segment // (the walk notes the segments' sections too: programHeaders)
	for i := 1; i < len(hdrs); i++ {
		h := &hdrs[i]
		a := kinds[i].align(h.sec)
		pos = alignUp(pos, a)
		h.off = pos
		if kinds[i]&hdrFilled != 0 {
			pos += h.size
		}
		if k := kinds[i]; k&hdrAlloc != 0 {
			g := &segs[0]
			if k&hdrWrite != 0 {
				g = &segs[1]
			}
			g.note(i, a, k&hdrNobits != 0)
		}
		if pos >= limit || pos < h.off {
			// A backstop: contents come from the inputs' bytes, and merge
			// refuses sections without file contents merged by name into
			// one with contents (which once got here with 2 TiB of
			// zeros); a forged alignment (a shared variable's, from its
			// symbol value) can still place a section that far. Refuse
			// before writing anything (the headers follow, so a file
			// reaching the limit here exceeds it).
			ctx.Diags.Fatalf(diag.At(diag.PhaseOutput, 2, 0), "output file '%s' would take more than 0x%x bytes (section %s)",
				ctx.Opts.output(), limit, h.sec.Name)
			return nil, errFatal
		}
	}
	fl := &outputLayout{shoff: alignUp(pos, 8)}
	shnum := len(hdrs)
	fl.phoff = fl.shoff + uint64(shnum)*elf.ShdrSize
	fl.phdrs = programHeaders(hdrs, kinds, &segs, fl.phoff)
	fl.total = fl.phoff + uint64(len(fl.phdrs))*elf.PhdrSize
	if fl.total > limit || fl.total < fl.shoff {
		ctx.Diags.Fatalf(diag.At(diag.PhaseOutput, 2, 0), "output file '%s' would take more than 0x%x bytes (section headers)",
			ctx.Opts.output(), limit)
		return nil, errFatal
	}
	// Past SHN_LORESERVE sections, e_shnum is 0 and the count is in
	// section 0's sh_size (putSectionHeaders).
	fl.header = elf.Header{Ident: ctx.Header.Ident, Type: elf.ETExec, Machine: elf.EMCUDA, Version: ctx.Header.Version,
		Phoff: fl.phoff, Shoff: fl.shoff, Flags: ctx.Header.Flags, Ehsize: elf.EhdrSize, Phentsize: elf.PhdrSize,
		Phnum: uint16(len(fl.phdrs)), Shentsize: elf.ShdrSize, Shstrndx: 1}
	if shnum < elf.SHNLoReserve {
		fl.header.Shnum = uint16(shnum)
	}
	return fl, nil
}

// putSectionHeaders encodes section headers [i, j) of hdrs into b (for
// emit's run buffers). Past SHN_LORESERVE sections, section 0's sh_size
// holds the count.
func putSectionHeaders(ctx *Context, hdrs []shdr, b []byte, i, j int) {
	shnum := len(hdrs)
	// (One header, filled field by field: a header made whole then
	// copied, read in 16-byte words right after its 4-byte fields were
	// stored, stalled at every section.)
	var sh elf.Shdr
	for k := i; k < j; k++ {
		if a := k + 8; a < j {
			// (The section records are scattered and cold: asked for
			// ahead.)
			prefetch.Range(unsafe.Pointer(hdrs[a].sec), unsafe.Sizeof(OutSec{}))
		}
		h := &hdrs[k]
		s := h.sec
		sh.NameOff, sh.Type, sh.Flags, sh.Offset, sh.Size = s.nameOff, s.Type, s.Flags, h.off, h.size
		sh.Link, sh.Info, sh.Addralign, sh.Entsize = h.link, h.info, uint32(s.Align), ctx.entsize(s)
		if ctx.Rel.InfoLink && infoLinked(s) {
			sh.Flags |= elf.SHFInfoLink
		}
		if k == 0 && shnum >= elf.SHNLoReserve {
			sh.Size = uint64(shnum)
		}
		elf.PutSectionHeader(b[uint64(k-i)*elf.ShdrSize:], &sh)
	}
}

// writeSink opens the output, told its size (total), and returns what
// emit writes to: the output, or, when there is none or for
// --warplink-dump=write, also (or only) mem, which then holds the file
// for Context.Out.
func writeSink(ctx *Context, total uint64) (sink io.Writer, mem *bytes.Buffer, err error) {
	sink, err = ctx.outputSink(total)
	if err != nil {
		return nil, nil, err
	}
	if sink == nil || ctx.Opts.Dump == "write" {
		mem = bytes.NewBuffer(make([]byte, 0, total))
		if sink == nil {
			sink = mem
		} else {
			sink = io.MultiWriter(sink, mem)
		}
	}
	return sink, mem, nil
}

// writeBuffer returns n zero bytes for write's own use: from the arena
// when large, else from the Go heap, which by write holds the pages
// finalize's garbage left (resident, and already faulted). Write runs with
// the heap at its limit, where a large allocation costs the allocating
// goroutine its share of a collection's work and brings the next
// collection closer; from the arena it costs the heap nothing, and its
// fresh memory reads zero (as the null symbol's slot must). Callers say
// large: the run buffers of a file of heapRunsBelow or more (10,000
// objects: 7-14 ms more from the heap, for about 2 MB less peak RSS), the
// symbol tables from arenaTablesFrom (10,000 objects, 1 MB of symbols:
// write a tenth faster, median peak RSS 1.8 MB lower). A heap far from
// its limit with that much free (heapRoom: 100,000 objects) gives them
// anyway.
func writeBuffer(ctx *Context, n int, large bool) []byte {
	if large && ctx.lateResident(n) {
		return ctx.late.Alloc(n)
	}
	if !large || heapRoom(n) {
		return make([]byte, n)
	}
	return ctx.lateAlloc(n)
}

// arenaTablesFrom is the size from which .symtab and .symtab_shndx come
// from the arena (writeBuffer):
// 512 KiB of symbols, about 5,000 generated objects (heapRunsBelow's
// links).
const arenaTablesFrom = 512 << 10

// maxOutputSize is Options.MaxOutputSize's default: 1 TiB.
const maxOutputSize = 1 << 40

// fill writes the section's bytes [lo, lo+len(b)) into b, every one of
// them (b may hold anything before). For a relocation section lo and
// len(b) are whole entries (entrySize).
func (h *shdr) fill(ctx *Context, b []byte, lo uint64) {
	switch s := h.sec; {
	case ctx.symOut != nil && s == ctx.symOut.sec:
		ctx.fillSymtab(b, lo)
	case s.relocs() != nil:
		rels := s.relocs()
		isRel := s.Type == elf.SHTRel
		es := h.entrySize()
		first := min(int(lo/es), len(rels))
		n := min(len(b)/int(es), len(rels)-first)
		rels = rels[first : first+n]
		for k, r := range rels {
			e := elf.Rela{Offset: r.Offset, Type: r.Type, Addend: r.Addend}
			if r.Sym != symNull {
				e.Sym = uint32(ctx.symIndexOf(r.Sym))
			}
			if isRel {
				elf.PutRel(b[k*elf.RelSize:], &e)
			} else {
				elf.PutRela(b[k*elf.RelaSize:], &e)
			}
		}
		clear(b[n*int(es):])
	default:
		ctx.fillSection(s, b, lo)
	}
}

// compactInfo reports whether s is a .nv.info.<f> section, whose bytes
// are in compact form (output symbol IDs for indices: nvinfo_compact.go)
// until write copies them. A section whole in one run is patched in the
// run buffer's copy, still in the cache (sectionRun), its own bytes left
// compact; one larger than a run is patched in place before it goes out
// (emitLarge), once: patchCompact on patched bytes would read indices as
// IDs. .nv.info itself is made in order (encodeInfo: its MIN_STACK_SIZE
// records go by symbol index).
func compactInfo(s *OutSec) bool {
	return s.Type == elf.SHTCudaInfo && s.gen == nil && s.Data() != nil
}

// entrySize is the unit a run may split the section at: a relocation
// entry for relocation sections, else a byte.
func (h *shdr) entrySize() uint64 {
	switch s := h.sec; {
	case s.Type == elf.SHTSymtab:
		return elf.SymSize // (a streamed .symtab: fillSymtab)
	case s.relocs() == nil:
		return 1
	case s.Type == elf.SHTRel:
		return elf.RelSize
	}
	return elf.RelaSize
}

// segment is what layoutFile's walk notes of a PT_LOAD segment's
// sections (the SHF_ALLOC ones: the read-only, then the writable), for
// programHeaders: the first's and last's indices (first 0: none) and the
// largest alignment of its NOBITS sections.
type segment struct {
	first, last int
	nobitsAlign uint64
}

// note adds section i, of alignment a, to the segment.
func (g *segment) note(i int, a uint64, nobits bool) {
	if g.first == 0 {
		g.first = i
	}
	g.last = i
	if nobits {
		g.nobitsAlign = max(g.nobitsAlign, a)
	}
}

// programHeaders builds nvlink's program headers: PT_PHDR, a PT_LOAD over
// code and read-only data, a PT_LOAD over writable data (when any), and a
// PT_LOAD over the program header table itself. segs is the read-only and
// the writable segment's sections as layoutFile noted them.
func programHeaders(hdrs []shdr, kinds []hdrKind, segs *[2]segment, phoff uint64) []elf.Prog {
	code, data := segs[0], segs[1]
	n := 2
	if code.first > 0 {
		n++
	}
	if data.first > 0 {
		n++
	}
	phsize := uint64(n) * elf.PhdrSize
	ph := []elf.Prog{{Type: elf.PTPhdr, Flags: 5, Off: phoff, Filesz: phsize, Memsz: phsize, Align: 8}}
	seg := func(g segment, write hdrKind, flags uint32) elf.Prog {
		start := hdrs[g.first].off
		pos, filesz := start, uint64(0)
		sawNobits := false
		nobitsAlign := g.nobitsAlign
		for i := g.first; i <= g.last; i++ {
			if kinds[i]&(hdrAlloc|hdrWrite) != hdrAlloc|write {
				continue
			}
			h := &hdrs[i]
			a := kinds[i].align(h.sec)
			nobits := kinds[i]&hdrNobits != 0
			if nobits && !sawNobits {
				// nvlink (11.8, 12.4 and 12.5 alike) starts the
				// memory-only part at the largest alignment of the
				// segment's NOBITS sections, whichever comes first, in
				// file offsets; the PROGBITS .nv.global.init's alignment
				// takes no part. Crafted segment-nobits-align (4 then 8:
				// 0x10 after 9 bytes), -first-align (8 then 4: 0x10),
				// -init-align and -sm80 (8-aligned .nv.global.init of 12
				// bytes, NOBITS 4 and 1: 0xc), -absolute (256).
				a = max(a, nobitsAlign)
			}
			pos = alignUp(pos, a)
			if nobits && !sawNobits {
				sawNobits = true
				filesz = pos - start
			}
			pos += h.size
		}
		if !sawNobits {
			filesz = pos - start
		}
		return elf.Prog{Type: elf.PTLoad, Flags: flags, Off: start, Filesz: filesz, Memsz: pos - start, Align: 8}
	}
	if code.first > 0 {
		ph = append(ph, seg(code, 0, 5))
	}
	if data.first > 0 {
		ph = append(ph, seg(data, hdrWrite, 6))
	}
	ph = append(ph, elf.Prog{Type: elf.PTLoad, Flags: 5, Off: phoff, Filesz: phsize, Memsz: phsize, Align: 8})
	return ph
}

// encodeSymtab gives .symtab (its stand-in sym) its contents, and
// .symtab_shndx (x, when section indices reach SHN_LORESERVE) its
// entries: run by run as emit streams the table, when it is larger than
// a run (chunk bytes: symtabOut), else encoded whole now (buildSymtab).
func encodeSymtab(ctx *Context, sym *OutSec, x []byte, chunk int) {
	if uint64(ctx.nsyms)*elf.SymSize > uint64(chunk) && len(ctx.symAt) > 0 {
		ctx.symOut = &symtabOut{sec: sym, shndx: x}
		return
	}
	sym.body = buildSymtab(ctx, x)
}

// buildSymtab encodes .symtab with final indices, and fills x,
// .symtab_shndx, when section indices reach SHN_LORESERVE (putSym).
func buildSymtab(ctx *Context, x []byte) []byte {
	b := writeBuffer(ctx, ctx.nsyms*elf.SymSize, ctx.nsyms*elf.SymSize >= arenaTablesFrom)
	if ctx.nullSymValue != 0 {
		binary.LittleEndian.PutUint64(b[8:], ctx.nullSymValue) // st_value of the null symbol (see finalize)
	}
	// Every symbol owns its slot (its Index): filled in parallel.
	for _, ids := range [][]int32{ctx.Locals, ctx.Globals} {
		parallelFor(len(ids), ctx.Opts.Threads, func(k int) error {
			if s := ctx.Syms[ids[k]]; s.Index > 0 {
				putSym(ctx, b, x, s, 0)
			}
			return nil
		})
	}
	return b
}

// putSym encodes symbol s into its .symtab entry, at index s.Index less
// first in b, and into x, .symtab_shndx, when there is one: past
// SHN_LORESERVE sections st_shndx is then SHN_XINDEX and the real index
// is in .symtab_shndx; an entry of a section below it holds that
// section's creation ordinal, as nvlink's does, and the entries of
// symbols without a section 0.
func putSym(ctx *Context, b, x []byte, s *OutSym, first int) {
	le := binary.LittleEndian
	shndx := s.Shndx
	if s.Sec >= 0 {
		idx := ctx.sectionIndex(s.Sec)
		// nvlink writes index 0xFFF2 directly (it reads as SHN_COMMON);
		// every other index past SHN_LORESERVE goes through XINDEX.
		if idx >= elf.SHNLoReserve && idx != elf.SHNCommon {
			shndx = elf.SHNXindex
			le.PutUint32(x[s.Index*4:], uint32(idx))
		} else {
			shndx = uint16(idx)
			if x != nil {
				// nvlink leaves here the index the section had when it
				// was created, before sections were put in order.
				le.PutUint32(x[s.Index*4:], uint32(ctx.ShStr.Ordinal(ctx.Secs[s.Sec].Name)))
			}
		}
	}
	name := s.nameOff
	if s.emptyName && !ctx.Rel.StrtabSymbolsLast {
		name = ctx.emptyProto // (12.x: its own, relayoutStrings)
	}
	// (Field by field, as in putSectionHeaders.)
	var e elf.Symbol
	e.Info, e.Other, e.RawShndx, e.Value, e.Size = s.Info, s.Other, shndx, s.Value, s.Size
	elf.PutSymbol(b[(s.Index-first)*elf.SymSize:], &e, name)
}

// symtabOut is .symtab made run by run as emit streams it, for a table
// larger than a run (encodeSymtab): its entries are made in the run
// buffers, so the table never sits whole in memory (8.8 MB at 100,000
// objects, taken when write's other tables take the heap to its peak).
// .symtab_shndx, which follows it in the file, is filled as its runs are
// made (the sections of a run are filled in parallel, but a section
// larger than a run goes out alone, in order: emitLarge).
type symtabOut struct {
	sec   *OutSec // the .symtab stand-in (sectionHeaders)
	shndx []byte  // .symtab_shndx (nil: none)
}

// symAhead is how many symbols ahead fillSymtab asks for a record.
const symAhead = 12

// symAtStride is how many symbol indices apart indexSymbols notes where a
// symbol is in Locals then Globals (Context.symAt), for fillSymtab.
const symAtStride = 1024

// fillSymtab makes .symtab's entries [lo/SymSize, lo/SymSize+len(b)/
// SymSize) in b (whole entries), in parallel over spans of symAtStride
// indices, each starting at the symbol Context.symAt notes for it: the
// symbols with an index are in Locals then Globals in index order.
func (ctx *Context) fillSymtab(b []byte, lo uint64) {
	clear(b)
	first := int(lo / elf.SymSize)
	end := min(first+len(b)/elf.SymSize, ctx.nsyms)
	if first == 0 && ctx.nullSymValue != 0 {
		binary.LittleEndian.PutUint64(b[8:], ctx.nullSymValue) // st_value of the null symbol (see finalize)
	}
	span0 := first / symAtStride
	x, nl := ctx.symOut.shndx, len(ctx.Locals)
	parallelFor((end+symAtStride-1)/symAtStride-span0, ctx.Opts.Threads, func(k int) error {
		from, to := max(first, (span0+k)*symAtStride), min(end, (span0+k+1)*symAtStride)
		idAt := func(pos int) int32 {
			if pos < nl {
				return ctx.Locals[pos]
			}
			return ctx.Globals[pos-nl]
		}
		for pos := int(ctx.symAt[span0+k]); pos < nl+len(ctx.Globals); pos++ {
			if a := pos + symAhead; a < nl+len(ctx.Globals) {
				// (The records lie in creation order, locals and
				// globals interleaved: asked for ahead.)
				prefetch.Range(unsafe.Pointer(ctx.Syms[idAt(a)]), unsafe.Sizeof(OutSym{}))
			}
			s := ctx.Syms[idAt(pos)]
			if s.Index >= to {
				break
			}
			if s.Index >= from {
				putSym(ctx, b, x, s, first)
			}
		}
		return nil
	})
}

// parallelFor runs fn(0..n-1) on up to w goroutines (0 = GOMAXPROCS), in
// chunks; the error of the lowest failing index wins.
func parallelFor(n, w int, fn func(i int) error) error {
	return actors.ParallelFor(context.Background(), n, workers(w), fn)
}

// workers is the thread count to use: w, or GOMAXPROCS when w is 0.
func workers(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// infoLinked: s is a section whose sh_info names what it belongs to, which
// Release.InfoLink marks SHF_INFO_LINK: relocations (--preserve-relocs'
// .nv.resolvedrela<sec> too), .nv.info.<f>, and a
// kernel's .nv.shared.<k> (which ptxas 12.x marks so itself; 11.8's
// inputs linked by nvlink 12.5 get it too: corpus cuda11.8-sm_80 shared).
func infoLinked(s *OutSec) bool {
	return s.Type == elf.SHTRela || s.Type == elf.SHTRel || s.Type == elf.SHTCudaResolvedRela || s.Type == elf.SHTCudaInfo && (s.InfoSym >= 0 || s.InfoSec >= 0) ||
		s.Nobits && (s.InfoSym >= 0 || s.InfoSec >= 0) && strings.HasPrefix(s.Name, ".nv.shared.")
}
