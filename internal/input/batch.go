package input

import (
	"sync/atomic"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
)

// File is an input file to read with ReadBatch and load with LoadFile.
type File struct {
	Path string
	// Data is the file's contents, or Err why they could not be read.
	Data []byte
	Err  error

	// NoHostInfo: the file is a cubin or fatbinary, or is, or has as an
	// archive member, a host object without host reference information
	// (set by LoadFile; not for libcudadevrt).
	NoHostInfo bool
	// Into, when not nil, is where LoadFile decodes a file named .cubin
	// (elf.ParseCompactTo): its unit's ELF then points to it.
	Into *elf.File

	// x, noHost and unit are LoadFile's expander, its flag and the unit
	// of a file named .cubin, here rather than on the heap apiece (a
	// link of many files loads them in batches of File records). A
	// .cubin's units point into unit: the File is not loaded again, nor
	// reused, until they are released.
	x      expander
	noHost uint32 // (atomic: see expander.noHostInfo; a plain word, as a File is copied by value)
	unit   [1]Unit

	buf    *[]byte // the scratch buffer Data is in (with Memory.Keep)
	mapped []byte  // the mapping Data is, if the file was mapped (Memory.MapFrom)
	fd     int     // (while a Ring reads it)
	res    int32
}

// ReadBatch reads the files (Path set) with the ring, a few system calls
// for them all, or one file at a time when r is nil or fails. With
// mem.Keep the contents are in scratch buffers that LoadFile passes on.
func (mem *Memory) ReadBatch(r *Ring, files []File) {
	// (Without Keep the units alias the buffers: no ring, whose buffers
	// are at least 16 KiB.)
	if r != nil && mem.Keep != nil && r.readBatch(files, mem.scratchBuf, mem.MapFrom) {
		// A file the ring could not read is read again the usual way: a
		// descriptor limit the batch reached, or an operation this
		// kernel refuses, gives it the same chance as before.
		for k := range files {
			if f := &files[k]; f.Err != nil { // (nothing mapped then)
				if f.buf != nil {
					mem.scratch.Put(f.buf)
				}
				*f = File{Path: f.Path}
				mem.readOne(f)
			}
		}
		return
	}
	for k := range files {
		mem.readOne(&files[k])
	}
}

// readOne reads f with system calls.
func (mem *Memory) readOne(f *File) {
	var read func(int) []byte
	var mapFrom int64
	if mem.Keep != nil {
		buf := mem.scratchBuf()
		f.buf = buf
		read = func(n int) []byte {
			if cap(*buf) < n {
				*buf = make([]byte, n)
			}
			return (*buf)[:n]
		}
		mapFrom = mem.MapFrom
	}
	f.Data, f.mapped, f.Err = readFileInto(f.Path, read, mapFrom)
}

// scratchBuf is a buffer to read a file into, with Keep (see LoadInto):
// from the pool, or new.
func (mem *Memory) scratchBuf() *[]byte {
	if buf, _ := mem.scratch.Get().(*[]byte); buf != nil {
		return buf
	}
	return new([]byte)
}

// LoadFile is LoadInto for a file ReadBatch has read; f's contents are
// then the units' (or back in the pool). The units of a file named .cubin
// are f's own (File.unit): f must not be loaded again or reused while
// they are in use.
func LoadFile(f *File, t Target, diags *diag.Bag, fileID int, seen *Seen, mem *Memory) ([]Unit, error) {
	x := &f.x
	*x = expander{arch: t.SM, virtual: t.Virtual, diags: diags, file: fileID, alloc: mem.Tables, keep: mem.Keep}
	if mem.Keep != nil {
		x.drop, x.zeros, x.syms, x.names = mem.Drop, mem.Zeros, mem.Symbols, mem.Names
	}
	x.workers = mem.Workers
	x.jit = mem.JIT
	x.mapped = f.mapped != nil
	x.into, x.unit = f.Into, &f.unit
	f.noHost = 0
	x.noHostInfo = &f.noHost
	var units []Unit
	err := Guard(f.Path, x.mapped, func() (err error) {
		units, err = x.load(f.Path, f.Data, f.Err, seen)
		return err
	})
	if fe, ok := err.(*FaultError); ok {
		// (From this goroutine or from one expanding an archive's
		// members: what was made of the file goes.)
		units, err = nil, x.fatal("%s", fe)
	}
	switch buf := f.buf; {
	case buf == nil || mem.Keep == nil:
	case mem.Drop != nil && len(units) > 0:
		units[0].scratch = buf // until Release
	default:
		mem.scratch.Put(buf)
	}
	if m := f.mapped; m != nil {
		// (Mapped only with Keep: the units hold copies, but for the
		// sections Drop names, which point into it until Release.)
		if mem.Drop != nil && len(units) > 0 {
			units[0].mapped = m
		} else {
			unmapFile(m)
		}
	}
	f.Data, f.buf, f.mapped = nil, nil, nil
	f.NoHostInfo = atomic.LoadUint32(&f.noHost) != 0
	return units, err
}
