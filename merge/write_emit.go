package merge

// emit: stream the laid-out file to the output in bounded runs.
//
// Inputs: the section headers with their offsets and the header tables
// (layoutFile). Output: the file's bytes, written in offset order.
// Invariants: two run buffers alternate, one filled while the writer
// goroutine writes the other out (a link of one thread writes each run
// at once: one buffer, or a small file's gathering buffer itself); sections of a run are filled in
// parallel into disjoint ranges; every byte of a run is written (the
// buffers are reused); the writer has ended whenever emit returns.

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/prefetch"
)

// emitChunk bounds the buffers the file is assembled in: the sections are
// streamed out in runs of about this many bytes, each run filled in
// parallel over disjoint ranges, so the whole output never sits in memory.
// A sixteenth of the file, from 256 KiB to 2 MiB: small links keep two
// small buffers (peak memory), large ones amortize each run's hand-over.
// Never more than the file rounded up to 4 KiB: a file smaller than
// 256 KiB goes out in one run, and its buffers take what it needs, not a
// large allocation that grows a fresh process's heap (a one-object link:
// 512 KiB for 6 KB).
func emitChunk(total uint64) int {
	return int(min(max(total/16, 256<<10), 2<<20, (total+4095)&^4095))
}

// writeChunk is the size of emit's runs for a file of total bytes:
// Options.WriteChunk when set, else emitChunk's.
func writeChunk(ctx *Context, total uint64) int {
	if ctx.Opts.WriteChunk > 0 {
		return ctx.Opts.WriteChunk
	}
	return emitChunk(total)
}

// heapRunsBelow is the output size under which the run buffers come from
// the Go heap: 16 MiB, about 5,700 generated objects. (1,000 / 2,000 /
// 4,000 objects: 2.1 / 1.9 / 2.0 MB less peak RSS, in the same time.)
const heapRunsBelow = 16 << 20

// emit writes the file to w in offset order: the ELF header, the section
// contents with their alignment padding, then at shoff the section headers
// (putSectionHeaders) and the program headers, total bytes in all (fl).
func emit(ctx *Context, w io.Writer, hdrs []shdr, kinds []hdrKind, fl *outputLayout) error {
	chunk := writeChunk(ctx, fl.total)
	var ehdr [elf.EhdrSize]byte
	elf.PutHeader(ehdr[:], &fl.header)
	if _, err := w.Write(ehdr[:]); err != nil {
		return err
	}
	e := startEmitter(ctx, w, chunk, fl.total)
	e.kinds = kinds
	defer e.finish()
	pos := e.sections(hdrs)
	e.headers(hdrs, pos, fl)
	return e.finish()
}

// emitter hands runs of the file to its writer, which writes them in the
// order sent and hands each run buffer back (free); after a failed write
// (failed) it only hands them back. The writer is a goroutine of its own
// but in a link of one thread (cmd/warplink's small links: a goroutine
// to start for nothing), where send writes at once. The run buffers may
// be unmapped once emit returns, so finish ends the writer first, even
// on a panic (emit defers it).
type emitter struct {
	ctx    *Context
	w      io.Writer
	chunk  int       // bytes of a run (emitChunk)
	kinds  []hdrKind // by header (sectionHeaders)
	total  uint64    // bytes of the file
	inline bool      // send writes at once: no writer goroutine
	// gather is w when it is a buffer that gathers the whole file
	// (Link's small files) and send writes at once: runs are filled in
	// its free space, not copied there from run buffers.
	gather *bufio.Writer
	full   chan emitRun
	free   chan []byte
	done   chan error
	werr   error // the first write error
	failed atomic.Bool
	closed bool
}

// emitRun is a run of the file for emit's writer: in a run buffer, which
// the writer hands back, or, direct, bytes a section already holds.
type emitRun struct {
	b      []byte
	direct bool
}

// startEmitter starts the writer goroutine on w, with two run buffers
// (made at their first use: next); inline, one, the only one in use.
func startEmitter(ctx *Context, w io.Writer, chunk int, total uint64) *emitter {
	e := &emitter{ctx: ctx, w: w, chunk: chunk, total: total, inline: ctx.Opts.Threads == 1,
		free: make(chan []byte, 2)}
	if e.inline {
		e.gather, _ = w.(*bufio.Writer)
		e.free <- nil
		return e
	}
	e.full, e.done = make(chan emitRun, 1), make(chan error, 1)
	go func() {
		for run := range e.full {
			e.put(run)
		}
		e.done <- e.werr
	}()
	var runs [][]byte
	if ctx.preparedRuns != nil {
		runs = ctx.preparedRuns()
	}
	runs = append(runs, nil, nil)
	e.free <- runs[0]
	e.free <- runs[1]
	return e
}

// finish ends the writer once every run sent is written, and returns its
// first write error (nil after the first call).
func (e *emitter) finish() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if e.inline {
		return e.werr
	}
	close(e.full)
	return <-e.done
}

// put writes a run (unless a write failed) and hands its buffer back.
func (e *emitter) put(run emitRun) {
	if e.werr == nil {
		if _, e.werr = e.w.Write(run.b); e.werr != nil {
			e.failed.Store(true)
		}
	}
	if !run.direct {
		e.free <- run.b
	}
}

// send hands a run to the writer.
func (e *emitter) send(run emitRun) {
	if e.inline {
		e.put(run)
		return
	}
	e.full <- run
}

// next is a run of n bytes, holding anything: a run buffer's, or, where
// w gathers the file in its own buffer (gather) and that has room, the
// buffer's free space itself (direct: w's Write then only keeps it).
func (e *emitter) next(n uint64) emitRun {
	if e.gather != nil && uint64(e.gather.Available()) >= n {
		return emitRun{b: e.gather.AvailableBuffer()[:n], direct: true}
	}
	buf := <-e.free
	if uint64(cap(buf)) < n {
		buf = writeBuffer(e.ctx, int(max(n, uint64(e.chunk))), e.total >= heapRunsBelow)
	}
	return emitRun{b: buf[:n]}
}

// sections sends the section contents with their alignment padding, from
// the end of the ELF header, and returns where they end (less after a
// failed write): padding longer than a run in run-sized parts of zeros
// (nvlink writes a 2 GiB alignment as given), a section larger than a run
// by emitLarge, the rest in runs of whole sections (sectionRun).
func (e *emitter) sections(hdrs []shdr) uint64 {
	pos := uint64(elf.EhdrSize)
	for i := 1; i < len(hdrs) && !e.failed.Load(); {
		if off := hdrs[i].off; off > pos && off-pos > uint64(e.chunk) {
			run := e.next(min(off-pos, uint64(e.chunk)))
			clear(run.b)
			e.send(run)
			pos += uint64(len(run.b))
			continue
		}
		if h := &hdrs[i]; e.kinds[i]&hdrFilled != 0 && h.size > uint64(e.chunk) {
			e.emitLarge(h, pos)
			pos, i = fileEnd(h, e.kinds[i]), i+1
			continue
		}
		pos, i = e.sectionRun(hdrs, i, pos)
	}
	return pos
}

// sectionRun sends the run [i, j) of sections from pos: sections until
// about a run of file, at least section i, filled in parallel over their
// disjoint ranges. It returns where the run ends and j.
func (e *emitter) sectionRun(hdrs []shdr, i int, pos uint64) (uint64, int) {
	j := i + 1
	end := fileEnd(&hdrs[i], e.kinds[i])
	for j < len(hdrs) && fileEnd(&hdrs[j], e.kinds[j])-pos <= uint64(e.chunk) {
		end = fileEnd(&hdrs[j], e.kinds[j])
		j++
	}
	if end < pos {
		end = pos
	}
	run := e.next(end - pos)
	// Only the bytes no section fills need clearing: alignment padding,
	// and sections without contents.
	b, cur := run.b, pos
	for k := i; k < j; k++ {
		h := &hdrs[k]
		if e.kinds[k]&hdrFilled != 0 {
			clear(b[cur-pos : h.off-pos])
			cur = h.off + h.size
		}
	}
	clear(b[cur-pos:])
	parallelFor(j-i, e.ctx.Opts.Threads, func(k int) error {
		prefetchFill(e.ctx, hdrs[:j], i+k)
		h := &hdrs[i+k]
		if e.kinds[i+k]&hdrFilled != 0 {
			out := b[h.off-pos : h.off-pos+h.size]
			h.fill(e.ctx, out, 0)
			if s := h.sec; compactInfo(s) {
				n := min(len(out), len(s.Data()))
				patchCompact(e.ctx, out[:n:n]) // (a bad record cannot reach the next section's bytes)
			}
		}
		return nil
	})
	e.send(run)
	return end, j
}

// headers sends, from pos (the end of the sections), the padding that
// aligns the section header table to fl.shoff, the section headers in
// runs of whole entries, and the program headers ending the last run.
func (e *emitter) headers(hdrs []shdr, pos uint64, fl *outputLayout) {
	pad := int(fl.shoff - pos)
	per := max(e.chunk/elf.ShdrSize, 1)
	for i := 0; i < len(hdrs) && !e.failed.Load(); i += per {
		j := min(i+per, len(hdrs))
		n := (j - i) * elf.ShdrSize
		if i == 0 {
			n += pad
		}
		if j == len(hdrs) {
			n += len(fl.phdrs) * elf.PhdrSize
		}
		run := e.next(uint64(n))
		off := 0
		if i == 0 {
			clear(run.b[:pad])
			off = pad
		}
		// (Each header owns its bytes: made in parallel, in parts of
		// 1,024, as the records they read miss the caches.)
		const part = 1024
		b := run.b[off:]
		parallelFor((j-i+part-1)/part, e.ctx.Opts.Threads, func(p int) error {
			lo := i + p*part
			putSectionHeaders(e.ctx, hdrs, b[(lo-i)*elf.ShdrSize:], lo, min(lo+part, j))
			return nil
		})
		off += (j - i) * elf.ShdrSize
		if j == len(hdrs) {
			for k := range fl.phdrs {
				elf.PutProg(run.b[off+k*elf.PhdrSize:], &fl.phdrs[k])
			}
		}
		e.send(run)
	}
}

// emitLarge sends a section larger than a run, from pos (the end of what
// was sent before it): the padding that aligns it, then its bytes, written
// straight from the memory that holds them when the section has them in
// one piece (the string and symbol tables, generated contents), else
// filled into run buffers a run at a time (on this goroutine: filling
// each part over all threads was no faster, the writer being bound by the
// kernel's copies). Run buffers then stay at the run's size: at 100,000
// objects the two had grown to the largest sections, 48 MB.
func (e *emitter) emitLarge(h *shdr, pos uint64) {
	pad := h.off - pos
	if compactInfo(h.sec) {
		patchCompact(e.ctx, h.sec.Data()) // (compactInfo)
	}
	if s := h.sec; s.relocs() == nil && uint64(len(s.Data())) == h.size {
		if pad > 0 {
			run := e.next(pad)
			clear(run.b)
			e.send(run)
		}
		e.send(emitRun{b: s.Data(), direct: true})
		return
	}
	es := h.entrySize()
	part := max(uint64(e.chunk)/es, 1) * es
	var pc *pieceCursor
	if s := h.sec; s.relocs() == nil && len(s.Pieces()) > 0 && (e.ctx.symOut == nil || s != e.ctx.symOut.sec) {
		pc = newPieceCursor(s.Pieces())
	}
	for lo := uint64(0); lo < h.size && !e.failed.Load(); lo += part {
		n := min(part, h.size-lo)
		run := e.next(pad + n)
		clear(run.b[:pad])
		if pc != nil {
			pc.fillAll(e.ctx, run.b[pad:], lo)
		} else {
			h.fill(e.ctx, run.b[pad:], lo)
		}
		e.send(run)
		pad = 0
	}
}

// pieceCursor fills a section made of pieces part by part, the parts in
// increasing offsets (emitLarge), with the bytes fillSection would give
// each: fillSection reads every piece's input section header for every
// part (a cache miss each: at 100,000 objects, sections of some 100,000
// pieces went out in dozens of parts), where the cursor skips the pieces
// that end before the part (start), and, when the pieces' offsets never
// decrease (sorted), stops at the first piece past it. Pieces skipped
// either way are those fillSection finds nothing of the part in.
type pieceCursor struct {
	ps     []Piece
	start  int  // every piece before it ends at or before the part
	sorted bool // offsets never decrease
	// serial: parts are filled by fill, on this goroutine (fillAll found
	// two pieces overlapping, or sorted is false).
	serial bool
	span   uint64 // bytes of one task of fillAll (fillSpan; tests make it small)
}

// fillSpan is the part of a run one task of pieceCursor.fillAll fills:
// 64 KiB, 32 tasks a run of 2 MiB (at 100,000 generated objects each
// holds some 350 of .debug_frame's pieces).
const fillSpan = 64 << 10

func newPieceCursor(ps []Piece) *pieceCursor {
	c := &pieceCursor{ps: ps, sorted: true, span: fillSpan}
	for i := 1; i < len(ps) && c.sorted; i++ {
		c.sorted = ps[i].Offset >= ps[i-1].Offset
	}
	return c
}

// fill writes the section's bytes [lo, lo+len(b)) into b, every one of
// them; lo is not below the last call's.
func (c *pieceCursor) fill(ctx *Context, b []byte, lo uint64) {
	for c.start < len(c.ps) {
		p := c.ps[c.start]
		if p.Offset+uint64(len(ctx.Objs[p.Obj].F.Sections[p.Sec].Data())) > lo {
			break
		}
		c.start++
	}
	ctx.fillPieces(c.ps[c.start:], b, lo, c.sorted)
}

// fillAll is fill over all threads, for pieces in offset order: each task
// fills a span of the part (fillSpan) from the pieces that begin in it
// and the last one before it, found by a binary search of the offsets.
// Where no piece overlaps the next, that one alone can reach into the
// span; each task checks that of the pieces it reads, and the last piece
// one task reads is the first the next task reads (across parts too), so
// that every piece is checked against the next. Pieces that do overlap
// (only a malformed input's, as merge lays each piece after the one
// before) make the part and every later one filled by fill instead.
// (Filled on one goroutine, .debug_frame's parts, 18 MB of 184-byte
// pieces at 100,000 generated objects, kept the writer waiting.)
func (c *pieceCursor) fillAll(ctx *Context, b []byte, lo uint64) {
	if c.serial || !c.sorted {
		c.fill(ctx, b, lo)
		return
	}
	var overlap atomic.Bool
	parallelFor(int((uint64(len(b))+c.span-1)/c.span), ctx.Opts.Threads, func(k int) error {
		from := uint64(k) * c.span
		if !c.fillSpan(ctx, b[from:min(from+c.span, uint64(len(b)))], lo+from) {
			overlap.Store(true)
		}
		return nil
	})
	if overlap.Load() {
		c.serial = true
		c.fill(ctx, b, lo)
	}
}

// fillSpan writes the section's bytes [lo, lo+len(b)) into b from the
// pieces that begin in it and the last one before it (fillAll), and
// reports whether each of those pieces ends before the next begins (if
// not, b may be incomplete).
func (c *pieceCursor) fillSpan(ctx *Context, b []byte, lo uint64) bool {
	first, _ := slices.BinarySearchFunc(c.ps, lo, func(p Piece, off uint64) int { return cmp.Compare(p.Offset, off) })
	return ctx.fillPieces(c.ps[max(first-1, 0):], b, lo, true)
}

// prefetchFill asks for what filling the sections after hdrs[k] reads,
// in stages, each needing what the one before brought in: the output
// section's own record ten sections ahead (sectionRun reads only the
// headers and their kinds), the record of the object its first piece
// comes from eight ahead, that object's file record six ahead, the
// piece's input section header four ahead, the start of its bytes two
// ahead. Each stage only computes the address it asks for from what is
// already in the cache: a field's address taken the plain way (&o.F)
// checks o against nil, a load of the very record being asked for, on
// which the pass used to stall. Hints only: every byte written is the
// same without them.
func prefetchFill(ctx *Context, hdrs []shdr, k int) {
	if j := k + 10; j < len(hdrs) {
		prefetch.Range(unsafe.Pointer(hdrs[j].sec), unsafe.Sizeof(OutSec{}))
	}
	if j := k + 8; j < len(hdrs) {
		if p, ok := firstPiece(hdrs[j].sec); ok {
			prefetch.Line(uintptr(unsafe.Pointer(ctx.Objs[p.Obj])) + unsafe.Offsetof(Obj{}.F))
		}
	}
	if j := k + 6; j < len(hdrs) {
		if p, ok := firstPiece(hdrs[j].sec); ok {
			if f := ctx.Objs[p.Obj].F; f != nil {
				prefetch.Line(uintptr(unsafe.Pointer(f)) + unsafe.Offsetof(elf.File{}.Sections))
			}
		}
	}
	if j := k + 4; j < len(hdrs) {
		if p, ok := firstPiece(hdrs[j].sec); ok {
			if f := ctx.Objs[p.Obj].F; f != nil && int(p.Sec) < len(f.Sections) {
				prefetch.Range(unsafe.Pointer(&f.Sections[p.Sec]), unsafe.Sizeof(f.Sections[0]))
			}
		}
	}
	if j := k + 2; j < len(hdrs) {
		if p, ok := firstPiece(hdrs[j].sec); ok {
			d := ctx.Objs[p.Obj].F.Sections[p.Sec].Data()
			prefetch.Slice(d[:min(len(d), 256)])
		}
	}
}

// firstPiece is the first piece of s's contents, if they are pieces.
func firstPiece(s *OutSec) (Piece, bool) {
	if ps := s.Pieces(); len(ps) > 0 {
		return ps[0], true
	}
	return Piece{}, false
}
