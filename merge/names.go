package merge

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/warplink/warplink/elf"
)

// errCheck marks the failure of a consistency check tests ask for
// (Options.CheckNames): Link reports it even after diagnostics, since no
// diagnostic stands for it.
var errCheck = errors.New("merge: check failed")

// nameMoved is releaseNames' check failure: record id of kind what names
// name, which is not at off in table.
func nameMoved(what string, id int32, name string, off uint32, table string) error {
	return fmt.Errorf("%w: %s %d's name %q is not at its offset %d in %s", errCheck, what, id, name, off, table)
}

// releaseNames points every output section's and symbol's name at its
// copy in the output's string tables (.shstrtab and .strtab, at its
// nameOff), and frees the inputs' string tables (Context.names): nothing
// reads them once merge has copied the names (at 100,000 generated
// objects 77 MB of the 447 read, a tenth of the peak). Later passes read
// names only through the output's records and tables, never through an
// input's sections or symbols (elf.File.SecName, elf.Symbol.Name), whose
// bytes are unmapped here.
//
// Invariant (Context.addStr): a record made before this holds, at
// nameOff in its table, its Name, made by merge's queue once it is
// closed; the tables' buffers stay alive (in mem, or pinned here when
// grown onto the heap), as the record-slab rule wants (recordSlab).
// check compares the bytes first (tests): a name not there is an error,
// and the inputs' tables stay.
// Not where a later pass still reads them (namesRead), nor where
// relocate may report a relocation by its sections' names (oddRelocs).
func (ctx *Context) releaseNames(check bool) error {
	if ctx.names == nil || ctx.namesRead() || slices.ContainsFunc(ctx.Objs, func(o *Obj) bool { return o.rare != nil && o.rare.oddRelocs }) {
		return nil
	}
	shstr, str := ctx.ShStr.Bytes(), ctx.Str.Bytes()
	ctx.pin(unsafe.Pointer(unsafe.SliceData(shstr)))
	ctx.pin(unsafe.Pointer(unsafe.SliceData(str)))
	// (In blocks on every thread from a few blocks on: at 100,000
	// objects 900,000 records, a cache miss or two each.)
	nsec := (len(ctx.Secs) + renameBlock - 1) / renameBlock
	blocks := nsec + (len(ctx.Syms)+renameBlock-1)/renameBlock
	w := ctx.Opts.Threads
	if blocks < 4 {
		w = 1
	}
	err := parallelFor(blocks, w, func(b int) error {
		if b < nsec {
			for _, s := range ctx.Secs[b*renameBlock : min(len(ctx.Secs), (b+1)*renameBlock)] {
				if check && !nameAt(shstr, s.nameOff, s.Name) {
					return nameMoved("section", s.ID, s.Name, s.nameOff, ".shstrtab")
				}
				s.Name = tableName(shstr, s.nameOff, s.Name)
			}
			return nil
		}
		b -= nsec
		for _, s := range ctx.Syms[b*renameBlock : min(len(ctx.Syms), (b+1)*renameBlock)] {
			if check && !nameAt(str, s.nameOff, s.Name) {
				return nameMoved("symbol", s.ID, s.Name, s.nameOff, ".strtab")
			}
			s.Name = tableName(str, s.nameOff, s.Name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if ctx.protoNames != nil {
		// (The inputs' prototype strings, in .strtab since merge entered them.)
		clear(ctx.protoNames)
		for i, p := range ctx.protoOrder {
			ctx.protoOrder[i] = ctx.Str.stored(p)
			ctx.protoNames[ctx.protoOrder[i]] = true
		}
	}
	for _, o := range ctx.Objs {
		o.shstrtab = nil
		if o.rare != nil {
			o.rare.secByName = nil // (its keys are the inputs' names)
		}
	}
	ctx.names.Free()
	return nil
}

// renameBlock is how many records one step of releaseNames renames.
const renameBlock = 1 << 14

// namesRead reports a link whose later passes read the inputs' names:
// under Release.InputOrder, finalize orders the string tables by the
// inputs' .shstrtab (eachName); a link that removes unused kernels
// (merged constants) looks up its constants' input sections by name in
// finalize (lastSingleConstant); --dump-callgraph numbers the functions
// by their inputs' symbols (dumpCallgraph).
func (ctx *Context) namesRead() bool {
	return ctx.Rel.InputOrder || !ctx.keep.EveryKernelUsed && ctx.usedFilter() || ctx.Opts.DumpCallgraph
}

// tableName is name as it stands in the string table tab at off.
func tableName(tab []byte, off uint32, name string) string {
	if len(name) == 0 {
		return name
	}
	return unsafe.String(&tab[off], len(name))
}

// nameAt reports whether name stands in the string table tab at off
// (releaseNames' check).
func nameAt(tab []byte, off uint32, name string) bool {
	return len(name) == 0 || uint64(off)+uint64(len(name)) <= uint64(len(tab)) && string(tab[off:int(off)+len(name)]) == name
}

// The prototype strings of the inputs' .nv.prototype records and of their
// .nv.callgraph's address-taken and indirect-call lists (-2, -3) are
// offsets into the inputs' .strtab, which releaseNames frees. Merge enters
// each string into the output's .strtab and rewrites the record's offset
// to its offset there (movePrototype; the table as merge leaves it is
// Context.protoStrs), so that the passes after (dce's call lists,
// finalize's gatherObjects) read the strings from that table.

// noPrototype is the offset a record whose string did not decode gets:
// past the end of any table (so that it decodes to nothing again), and
// below 2^31, so that a record of caller 0 does not read as a block
// marker (elf.CallgraphEntry.IsMarker).
const noPrototype = 0x7FFFFFFF

// protoRecords is s's contents, to rewrite: a private copy when they are
// the arena's shared zeros (hugemem.Arena.Zeros), which are never written.
func protoRecords(o *Obj, s *elf.Section) []byte {
	d := s.Data()
	if len(d) == 0 || slices.ContainsFunc(d, func(c byte) bool { return c != 0 }) {
		return d
	}
	d = bytes.Clone(d)
	s.SetData(d)
	r := o.more()
	r.private = append(r.private, d) // (see objRare.private)
	return d
}

// movePrototype points the prototype record at offset off of d, whose
// string str decoded (ok) or not, at str in the output's .strtab, which
// it enters there ("" is offset 0).
func movePrototype(ctx *Context, d []byte, off int, str string, ok bool) {
	at := (*uint32)(unsafe.Pointer(&d[off+4]))
	switch {
	case !ok:
		*at = noPrototype
	case str == "":
		*at = 0
	default:
		ctx.addStr(ctx.Str, str, at)
	}
}

// stored is s as t holds it (s itself when t does not).
func (t *StrTab) stored(s string) string {
	if s == "" {
		return s
	}
	if e := t.slots[t.find(s, t.hash(s))]; e.off != 0 {
		return unsafe.String(&t.buf[e.off], len(s))
	}
	return s
}
