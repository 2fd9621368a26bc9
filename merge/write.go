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
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/warplink/warplink/actors"
	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
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
	hdrs := sectionHeaders(ctx)
	fl, err := layoutFile(ctx, hdrs)
	if err != nil {
		return err
	}
	sink, mem, err := writeSink(ctx, fl.total)
	if err != nil {
		return err
	}
	if err := emit(ctx, sink, hdrs, fl); err != nil {
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
// then the sections in Context.Order, at index ctx.fixed onwards.
func sectionHeaders(ctx *Context) []shdr {
	symtab, shndx := buildSymtab(ctx)
	shstr := ctx.ShStr.Bytes()
	str := ctx.Str.Bytes()

	hdrs := make([]shdr, ctx.fixed+len(ctx.Order))
	hdrs[0].sec = &OutSec{}
	hdrs[1] = shdr{sec: &OutSec{nameOff: ctx.ShStr.Add(".shstrtab"), Type: elf.SHTStrtab, Align: 1, Data: shstr}, size: uint64(len(shstr))}
	hdrs[2] = shdr{sec: &OutSec{nameOff: ctx.ShStr.Add(".strtab"), Type: elf.SHTStrtab, Align: 1, Data: str}, size: uint64(len(str))}
	hdrs[3] = shdr{sec: &OutSec{nameOff: ctx.ShStr.Add(".symtab"), Type: elf.SHTSymtab, Align: 8, Entsize: elf.SymSize, Data: symtab}, size: uint64(len(symtab)),
		link: 2, info: uint32(ctx.firstGlobal)}
	if ctx.fixed == 5 {
		hdrs[4] = shdr{sec: &OutSec{nameOff: ctx.ShStr.Add(".symtab_shndx"), Type: elf.SHTSymtabShndx, Align: 4, Entsize: 4, Data: shndx}, size: uint64(len(shndx)),
			link: 3}
	}
	for i, id := range ctx.Order {
		s := ctx.Secs[id]
		h := shdr{sec: s, size: s.Size}
		if s.LinkSymtab {
			h.link = 3
		}
		if s.Type == elf.SHTNote && s.Name == cuinfoName {
			// The note on the CUDA version links the toolkit notes, as in
			// every input that has both (nvlink 13.0's corpus outputs).
			if id, ok := ctx.secByName[tkinfoName]; ok && !ctx.Secs[id].Dead {
				h.link = uint32(ctx.Secs[id].Index)
			}
		}
		switch {
		case s.InfoSym >= 0 && ctx.Syms[s.InfoSym].Index > 0:
			h.info = uint32(ctx.Syms[s.InfoSym].Index) | s.InfoExtra
		case s.InfoSec >= 0:
			h.info = uint32(ctx.Secs[s.InfoSec].Index)
		}
		hdrs[ctx.fixed+i] = h
	}
	return hdrs
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
func layoutFile(ctx *Context, hdrs []shdr) (*outputLayout, error) {
	pos := uint64(elf.EhdrSize)
	limit := ctx.Opts.MaxOutputSize
	if limit == 0 {
		limit = maxOutputSize
	}
	for i := 1; i < len(hdrs); i++ {
		h := &hdrs[i]
		a := h.sec.Align
		if a == 0 {
			a = 1
		}
		pos = alignUp(pos, a)
		h.off = pos
		if !h.sec.Nobits {
			pos += h.size
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
	fl.phdrs = programHeaders(ctx, hdrs, fl.phoff)
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
	for k := i; k < j; k++ {
		h := &hdrs[k]
		s := h.sec
		sh := elf.Section{NameOff: s.nameOff, Type: s.Type, Flags: s.Flags, Offset: h.off, Size: h.size,
			Link: h.link, Info: h.info, Addralign: uint32(s.Align), Entsize: uint32(s.Entsize)}
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

// emitChunk bounds the buffers the file is assembled in: the sections are
// streamed out in runs of about this many bytes, each run filled in
// parallel over disjoint ranges, so the whole output never sits in memory.
// A sixteenth of the file, from 256 KiB to 2 MiB: small links keep two
// small buffers (peak memory), large ones amortize each run's hand-over.
func emitChunk(total uint64) int {
	return int(min(max(total/16, 256<<10), 2<<20))
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
// write a tenth faster, median peak RSS 1.8 MB lower).
func writeBuffer(ctx *Context, n int, large bool) []byte {
	if !large {
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

// heapRunsBelow is the output size under which the run buffers come from
// the Go heap: 16 MiB, about 5,700 generated objects. (1,000 / 2,000 /
// 4,000 objects: 2.1 / 1.9 / 2.0 MB less peak RSS, in the same time.)
const heapRunsBelow = 16 << 20

// emit writes the file to w in offset order: the ELF header, the section
// contents with their alignment padding, then at shoff the section headers
// (putSectionHeaders) and the program headers, total bytes in all (fl). Two
// run buffers alternate: one is filled while the other is being written
// out.
func emit(ctx *Context, w io.Writer, hdrs []shdr, fl *outputLayout) error {
	h, shoff, total, phdrs := &fl.header, fl.shoff, fl.total, fl.phdrs
	chunk := emitChunk(total)
	if ctx.Opts.WriteChunk > 0 {
		chunk = ctx.Opts.WriteChunk
	}
	var ehdr [elf.EhdrSize]byte
	elf.PutHeader(ehdr[:], h)
	if _, err := w.Write(ehdr[:]); err != nil {
		return err
	}
	// The writer goroutine writes runs in the order sent and hands each
	// run buffer back; after a failed write it only hands them back. It
	// has ended whenever emit returns, even by a panic (the buffers may be
	// unmapped after that).
	full, free := make(chan emitRun, 1), make(chan []byte, 2)
	done := make(chan error, 1)
	var failed atomic.Bool
	go func() {
		var err error
		for run := range full {
			if err == nil {
				if _, err = w.Write(run.b); err != nil {
					failed.Store(true)
				}
			}
			if !run.direct {
				free <- run.b
			}
		}
		done <- err
	}()
	closed := false
	finish := func() error {
		if closed {
			return nil
		}
		closed = true
		close(full)
		return <-done
	}
	defer finish()
	free <- nil
	free <- nil
	// next is a run buffer of n bytes.
	next := func(n uint64) []byte {
		buf := <-free
		if uint64(cap(buf)) < n {
			buf = writeBuffer(ctx, int(max(n, uint64(chunk))), total >= heapRunsBelow)
		}
		return buf[:n]
	}
	pos := uint64(elf.EhdrSize)
	for i := 1; i < len(hdrs) && !failed.Load(); {
		if off := hdrs[i].off; off > pos && off-pos > uint64(chunk) {
			// Alignment padding longer than a run (nvlink writes a 2 GiB
			// alignment as given): zeros, in run-sized parts.
			run := next(min(off-pos, uint64(chunk)))
			clear(run)
			full <- emitRun{b: run}
			pos += uint64(len(run))
			continue
		}
		if h := &hdrs[i]; h.filled() && h.size > uint64(chunk) {
			emitLarge(ctx, h, pos, chunk, next, full, &failed)
			pos, i = h.end(), i+1
			continue
		}
		// The run [i, j): sections until about chunk bytes of file.
		j := i + 1
		end := hdrs[i].end()
		for j < len(hdrs) && hdrs[j].end()-pos <= uint64(chunk) {
			end = hdrs[j].end()
			j++
		}
		if end < pos {
			end = pos
		}
		run := next(end - pos)
		// Only the bytes no section fills need clearing: alignment
		// padding, and sections without contents.
		cur := pos
		for k := i; k < j; k++ {
			h := &hdrs[k]
			if h.filled() {
				clear(run[cur-pos : h.off-pos])
				cur = h.end()
			}
		}
		clear(run[cur-pos:])
		base, first := pos, i
		parallelFor(j-first, ctx.Opts.Threads, func(k int) error {
			h := &hdrs[first+k]
			if h.filled() {
				h.fill(ctx, run[h.off-base:h.off-base+h.size], 0)
			}
			return nil
		})
		full <- emitRun{b: run}
		pos, i = end, j
	}
	// The headers, in runs of whole entries; the program headers end the
	// last run, after the padding that aligns the table (in the first).
	pad := int(shoff - pos)
	per := max(chunk/elf.ShdrSize, 1)
	for i := 0; i < len(hdrs) && !failed.Load(); i += per {
		j := min(i+per, len(hdrs))
		n := (j - i) * elf.ShdrSize
		if i == 0 {
			n += pad
		}
		if j == len(hdrs) {
			n += len(phdrs) * elf.PhdrSize
		}
		run := next(uint64(n))
		off := 0
		if i == 0 {
			clear(run[:pad])
			off = pad
		}
		putSectionHeaders(ctx, hdrs, run[off:], i, j)
		off += (j - i) * elf.ShdrSize
		if j == len(hdrs) {
			for k := range phdrs {
				elf.PutProg(run[off+k*elf.PhdrSize:], &phdrs[k])
			}
		}
		full <- emitRun{b: run}
	}
	return finish()
}

// emitRun is a run of the file for emit's writer: in a run buffer, which
// the writer hands back, or, direct, bytes a section already holds.
type emitRun struct {
	b      []byte
	direct bool
}

// emitLarge sends a section larger than a run, from pos (the end of what
// was sent before it): the padding that aligns it, then its bytes, written
// straight from the memory that holds them when the section has them in
// one piece (the string and symbol tables, generated contents), else
// filled into run buffers a run at a time (on this goroutine: filling
// each part over all threads was no faster, the writer being bound by the
// kernel's copies). Run buffers then
// stay at the run's size: at 100,000 objects the two had grown to the
// largest sections, 48 MB.
func emitLarge(ctx *Context, h *shdr, pos uint64, chunk int, next func(uint64) []byte,
	full chan<- emitRun, failed *atomic.Bool) {
	pad := h.off - pos
	if s := h.sec; s.Relocs == nil && uint64(len(s.Data)) == h.size {
		if pad > 0 {
			run := next(pad)
			clear(run)
			full <- emitRun{b: run}
		}
		full <- emitRun{b: s.Data, direct: true}
		return
	}
	es := h.entrySize()
	part := max(uint64(chunk)/es, 1) * es
	for lo := uint64(0); lo < h.size && !failed.Load(); lo += part {
		n := min(part, h.size-lo)
		run := next(pad + n)
		clear(run[:pad])
		h.fill(ctx, run[pad:], lo)
		full <- emitRun{b: run}
		pad = 0
	}
}

// filled reports whether the section has bytes in the file for fill to
// write (NOBITS and empty sections have none).
func (h *shdr) filled() bool { return !h.sec.Nobits && h.size > 0 }

// fill writes the section's bytes [lo, lo+len(b)) into b, every one of
// them (b may hold anything before). For a relocation section lo and
// len(b) are whole entries (entrySize).
func (h *shdr) fill(ctx *Context, b []byte, lo uint64) {
	switch s := h.sec; {
	case s.Relocs != nil:
		isRel := s.Type == elf.SHTRel
		es := h.entrySize()
		first := min(int(lo/es), len(s.Relocs))
		n := min(len(b)/int(es), len(s.Relocs)-first)
		for k, r := range s.Relocs[first : first+n] {
			e := elf.Rela{Offset: r.Offset, Type: r.Type, Addend: r.Addend}
			if r.Sym != symNull {
				e.Sym = uint32(ctx.Syms[r.Sym].Index)
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

// entrySize is the unit a run may split the section at: a relocation
// entry for relocation sections, else a byte.
func (h *shdr) entrySize() uint64 {
	switch s := h.sec; {
	case s.Relocs == nil:
		return 1
	case s.Type == elf.SHTRel:
		return elf.RelSize
	}
	return elf.RelaSize
}

// end is where the section's bytes end in the file.
func (h *shdr) end() uint64 {
	if h.sec.Nobits {
		return h.off
	}
	return h.off + h.size
}

// programHeaders builds nvlink's program headers: PT_PHDR, a PT_LOAD over
// code and read-only data, a PT_LOAD over writable data (when any), and a
// PT_LOAD over the program header table itself.
func programHeaders(ctx *Context, hdrs []shdr, phoff uint64) []elf.Prog {
	code, data := make([]int, 0, len(hdrs)), make([]int, 0, len(hdrs)/4)
	for i := 4; i < len(hdrs); i++ {
		if hdrs[i].sec.Flags&elf.SHFAlloc == 0 {
			continue
		}
		if hdrs[i].sec.Flags&elf.SHFWrite != 0 {
			data = append(data, i)
		} else {
			code = append(code, i)
		}
	}
	n := 2
	if len(code) > 0 {
		n++
	}
	if len(data) > 0 {
		n++
	}
	phsize := uint64(n) * elf.PhdrSize
	ph := []elf.Prog{{Type: elf.PTPhdr, Flags: 5, Off: phoff, Filesz: phsize, Memsz: phsize, Align: 8}}
	seg := func(idx []int, flags uint32) elf.Prog {
		start := hdrs[idx[0]].off
		pos, filesz := start, uint64(0)
		sawNobits := false
		var maxAlign uint64
		for _, i := range idx {
			maxAlign = max(maxAlign, hdrs[i].sec.Align)
		}
		for _, i := range idx {
			h := hdrs[i]
			a := h.sec.Align
			if a == 0 {
				a = 1
			}
			if h.sec.Nobits && !sawNobits {
				// nvlink 11.8 starts the memory-only part at the largest
				// alignment of the segment's sections (a 4-aligned
				// .nv.global after 9 bytes of .nv.global.init, with an
				// 8-aligned .nv.shared.<k> after it: filesz 0x10, not 0xc;
				// crafted segment-nobits-align).
				a = max(a, maxAlign)
			}
			pos = alignUp(pos, a)
			if h.sec.Nobits && !sawNobits {
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
	if len(code) > 0 {
		ph = append(ph, seg(code, 5))
	}
	if len(data) > 0 {
		ph = append(ph, seg(data, 6))
	}
	ph = append(ph, elf.Prog{Type: elf.PTLoad, Flags: 5, Off: phoff, Filesz: phsize, Memsz: phsize, Align: 8})
	return ph
}

// buildSymtab encodes .symtab with final indices, and .symtab_shndx when
// section indices reach SHN_LORESERVE (st_shndx is then SHN_XINDEX and the
// real index is in .symtab_shndx; an entry of a section below it holds
// that section's creation ordinal, as nvlink's does, and the entries of
// symbols without a section 0).
func buildSymtab(ctx *Context) ([]byte, []byte) {
	le := binary.LittleEndian
	b := writeBuffer(ctx, ctx.nsyms*elf.SymSize, ctx.nsyms*elf.SymSize >= arenaTablesFrom)
	var x []byte
	if ctx.fixed == 5 {
		x = writeBuffer(ctx, ctx.nsyms*4, ctx.nsyms*4 >= arenaTablesFrom)
	}
	put := func(s *OutSym) {
		shndx := s.Shndx
		if s.Sec >= 0 {
			idx := ctx.Secs[s.Sec].Index
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
		e := elf.Symbol{NameOff: name, Info: s.Info, Other: s.Other, RawShndx: shndx, Value: s.Value, Size: s.Size}
		elf.PutSymbol(b[s.Index*elf.SymSize:], &e)
	}
	if ctx.nullSymValue != 0 {
		le.PutUint64(b[8:], ctx.nullSymValue) // st_value of the null symbol (see finalize)
	}
	// Every symbol owns its slot (its Index): filled in parallel.
	for _, ids := range [][]int32{ctx.Locals, ctx.Globals} {
		parallelFor(len(ids), ctx.Opts.Threads, func(k int) error {
			if s := ctx.Syms[ids[k]]; s.Index > 0 {
				put(s)
			}
			return nil
		})
	}
	return b, x
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
