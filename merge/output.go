package merge

// output: the output file the write pass streams into, and its pages
// prepared ahead.
//
// Inputs: an estimate of the file's size when finalize starts the
// preparation (startPrepare; prepare), the file's size (open). Outputs: the file, an unnamed or temporary one
// (atomicfile) named only by Commit.
// Invariants: the goroutine that prepares the file has ended before open
// returns and before the link commits or aborts the file; it only writes
// zeros into a file no one sees (atomicfile.CreateAhead), which open then
// cuts to its size, so the file's bytes are write's alone.
//
// Why: for a file of hundreds of megabytes the page cache's fresh pages
// cost the write pass more than its copies: the kernel allocates and
// zeroes a page for every 4 KiB written (286 MB, the output of 100,000
// generated objects: 50-70 ms of write calls, up to 0.7 s where this
// VM's host has taken the memory back), where overwriting pages the file
// has costs the copy alone (21 ms). So once relocate, the last parallel
// pass before write, ends, a goroutine opens the file and writes zeros
// over what the estimate covers (and makes write's run buffers), on the
// core the mostly serial finalize and order leave idle.

import (
	"bufio"
	"io"
	"sync/atomic"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/hugemem"
)

// prepareFrom is the least size of sections for which the file is
// prepared ahead: 4 MiB, about 1,500 generated objects (a smaller file
// is written in a few milliseconds; its preparation would be a goroutine
// and a file opened for little).
const prepareFrom = 4 << 20

// prepareChunk is the size of one write of zeros (and how often the
// preparation checks whether to stop).
const prepareChunk = 1 << 20

// outputFile opens the output for the write pass (open), or has it
// opened and prepared ahead (prepare).
type outputFile struct {
	opts  *Options
	diags *diag.Bag
	file  *atomicfile.File
	// gather is the buffer a file under gatherBelow is written through,
	// at once (emitChunk).
	gather *bufio.Writer
	opened bool // open gave the write pass the file
	// The preparation: stop asks it to end, done is closed when it has,
	// filled is how many bytes of zeros it wrote.
	stop   atomic.Bool
	done   chan struct{}
	filled int64
	// runs are the write pass's two run buffers, made and touched by the
	// preparation (prepareRuns) in runMem, which close unmaps.
	runs   [][]byte
	runMem *hugemem.Arena
}

// prepareRunsBelow is the estimated file size under which the
// preparation also makes the write pass's run buffers, from heapRunsBelow
// on: 16-64 MiB, about 5,700-20,000 generated objects. There the reset
// tables' memory has no resident room left for them after finalize
// (10,000 objects), and they came from the heap in fresh pages, their
// faults (two huge pages) paid by the write pass (for 3.4 MB more peak
// RSS made here at 10,000 objects); larger links find room in that
// memory (100,000 objects: writeBuffer, lateResident), which buffers
// made here would only add to the peak, and smaller ones take them from
// the heap's garbage (heapRunsBelow).
const prepareRunsBelow = 64 << 20

// prepare opens the file ahead and starts writing size bytes of zeros
// into it, unless size is under prepareFrom or the file cannot be opened
// so (open then opens it, or reports why not, as it would have).
func (o *outputFile) prepare(size uint64) {
	if size < prepareFrom || o.file != nil || o.done != nil {
		return
	}
	f, err := atomicfile.CreateAhead(o.opts.Files, o.opts.output())
	if err != nil {
		return
	}
	o.file, o.done = f, make(chan struct{})
	go func() {
		defer close(o.done)
		if size >= heapRunsBelow && size < prepareRunsBelow {
			o.prepareRuns(emitChunk(size + size/16))
		}
		f.Reserve(int64(min(size, 1<<62))) // (the blocks at once: see atomicfile.File.Reserve)
		zeros := make([]byte, prepareChunk)
		for o.filled < int64(size) && !o.stop.Load() {
			n := min(int64(size)-o.filled, prepareChunk)
			if _, err := f.WriteAt(zeros[:n], o.filled); err != nil {
				return // (write reports what goes wrong when it writes)
			}
			o.filled += n
		}
	}()
}

// prepareRuns makes two run buffers of chunk bytes for the write pass
// (emitter.next takes them while they hold a run), their pages faulted in
// here, on the core finalize leaves idle.
func (o *outputFile) prepareRuns(chunk int) {
	o.runMem = &hugemem.Arena{}
	b := o.runMem.Alloc(2 * chunk)
	hugemem.Touch(b)
	o.runs = [][]byte{b[:chunk:chunk], b[chunk:]}
}

// preparedRuns hands the write pass the run buffers the preparation made
// (nil: none), once: they stay valid until close.
func (o *outputFile) preparedRuns() [][]byte {
	o.wait()
	r := o.runs
	o.runs = nil
	return r
}

// wait ends the preparation, if one runs, and waits for it.
func (o *outputFile) wait() {
	if o.done != nil {
		o.stop.Store(true)
		<-o.done
	}
}

// open returns where the write pass streams a file of size bytes: the
// prepared file cut to that size, or one opened now.
func (o *outputFile) open(size uint64) (io.Writer, error) {
	o.wait()
	f := o.file
	switch {
	case f == nil:
		var err error
		if f, err = createOutput(o.opts.Files, o.opts.output()); err != nil {
			o.diags.Fatalf(diag.At(diag.PhaseOutput, 0, 0), "Could not open output file '%s'", o.opts.output())
			return nil, errFatal
		}
		if size >= reserveFrom {
			f.Reserve(int64(min(size, 1<<62))) // (the blocks at once: see atomicfile.File.Reserve)
		}
		o.file = f
	case o.filled > int64(size):
		if err := f.Truncate(int64(size)); err != nil {
			return nil, err
		}
	}
	o.opened = true
	if size < gatherBelow {
		o.gather = bufio.NewWriterSize(f, int(size))
		return o.gather, nil
	}
	return f, nil
}

// close commits the file when the link succeeded (ok) and its last bytes
// are out, else removes it; it reports an error of the output's.
func (o *outputFile) close(ok bool) error {
	o.wait()
	defer o.runMem.Free() // (the write pass has ended: emit's writer with it)
	if o.file == nil {
		return nil
	}
	var err error
	if ok && o.gather != nil {
		err = o.gather.Flush()
	}
	if ok && err == nil {
		return o.file.Commit()
	}
	o.file.Abort()
	return err
}

// startPrepare has the output prepared ahead (outputFile.prepare) for an
// estimate of the file's size: the sections with bytes in the file (their
// sizes as dce left them, summed by its walk over every section record,
// and those of the sections made since: layout's resizes and kills of
// the older ones go unseen, which only moves the zero-fill's size), the
// string tables, a .symtab entry for every symbol and a section header
// for every section, and a sixteenth more for what finalize adds after
// (its .nv.info.<f> sections, their headers and names: 6-7 % of the
// file for the generated links). The tables and the headers are a third
// of the file at 10,000 generated objects, and the tables come first in
// it, so counting the sections alone left the file's last third to
// fresh pages; a file smaller than the estimate is cut to its size
// (open). Finalize starts it once its parallel visit of the objects
// (gatherObjects) is over: the preparation takes a core for
// milliseconds (10,000 objects: its run buffers' faults and the zeros),
// which that visit needs both of, and the serial rest of finalize
// leaves one idle. Not for a link that has failed.
func startPrepare(ctx *Context) {
	if ctx.prepareOutput == nil || ctx.Diags.Failed() {
		return
	}
	n := ctx.dceBytes
	for _, s := range ctx.Secs[ctx.dceSecs:] {
		if !s.Nobits && !s.Dead {
			n += s.Size
		}
	}
	n += uint64(len(ctx.ShStr.Bytes())) + uint64(len(ctx.Str.Bytes())) +
		uint64(len(ctx.Syms))*elf.SymSize + uint64(len(ctx.Secs))*elf.ShdrSize
	ctx.prepareOutput(n + n/16)
}
