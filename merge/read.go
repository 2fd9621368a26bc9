package merge

// read: load every input and decode its cubins, in parallel.
//
// Inputs: Options.Inputs in command-line order ("-l<name>" entries are
// looked up in Options.LibDirs). Outputs: Context.Objs, indexed by file ID:
// the position of the cubin in the expanded input list (archive members
// and fatbin members in their order).
// Invariants: positions are fixed before any goroutine starts; every
// goroutine writes only its own slot; diagnostics are keyed by position.
// Only the sections later passes read are kept (in the arena; the string
// tables in one of their own, Context.names, until merge has copied the
// names); the symbol and relocation tables are decoded before their bytes
// are let go (decodedOnly, input.Memory.Release), and no later pass reads
// them.
// Workers take batches of consecutive inputs, each read with a few system
// calls through an io_uring where there is one (input.Ring); what a ring
// cannot read is read file by file, so the outcome is the same.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/ar"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/input"
)

func read(ctx *Context) error {
	sm, virtual := ctx.Opts.Target()
	paths, nfiles := inputPaths(ctx)
	l := readInputs(ctx, paths, nfiles, input.Target{SM: sm, Virtual: virtual})
	ctx.objKeep = l.keep
	if err := numberObjects(ctx, l, nfiles); err != nil {
		return err
	}
	if err := chooseRelease(ctx); err != nil {
		return err
	}
	if ctx.Opts.InputSize != nil {
		var size int64
		for _, n := range l.sizes {
			size += n
		}
		ctx.Opts.InputSize(size, !ctx.mem.OffHeap())
	}
	if virtual {
		// -arch=compute_<n>: nvlink reads and checks the inputs as for
		// sm_<n> (compiling their PTX and NVVM IR, warning of those
		// without code for it) and stops: no output, no -v report,
		// nothing timed, exit status 0 (11.8 and 12.5; crafted
		// virtual-target cases). The --register-link-binaries file
		// still lists the objects read.
		return errVirtualTarget
	}
	ctx.Header = outputHeader(ctx, sm)
	t := sumTotals(l.totals)
	ctx.totals = &t
	ctx.hostInfoMissing = slices.Contains(l.noHost, true)
	ctx.hostKernels = hostKernels(ctx)
	return nil
}

// inputPaths resolves -l names and drops repeated archives, serially:
// both depend on command-line order. nvlink opens the -l libraries after
// every file input, whatever their position on the command line:
// paths[:nfiles] are the file inputs, the rest the libraries found (one
// that is not found is skipped silently).
func inputPaths(ctx *Context) (paths []string, nfiles int) {
	var files, libs []string
	for k, in := range ctx.Opts.Inputs {
		if name, ok := strings.CutPrefix(in, "-l"); ok {
			p, found, skipped := input.FindLibrarySkipping(name, ctx.Opts.LibDirs)
			for _, s := range skipped {
				ctx.Diags.Warnf(diag.At(diag.PhaseInputs, -1, 2+k), "Skipping incompatible '%s' when searching for -l%s", s, name)
			}
			if found {
				libs = append(libs, p)
			}
			continue
		}
		files = append(files, in)
	}
	seen := &input.Seen{}
	for k, path := range append(files, libs...) {
		if mayBeArchive(path) && !seen.Add(path) {
			continue
		}
		paths = append(paths, path)
		if k < len(files) {
			nfiles = len(paths)
		}
	}
	return paths, nfiles
}

// loaded is what read's workers produce, one slot per input path; each
// worker writes only the slots of its own batch, and file IDs are
// assigned afterwards (numberObjects), in command-line order.
type loaded struct {
	objs   [][]*Obj
	sizes  []int64     // bytes of the input's cubins
	errs   []error     // the input's load error
	perrs  []error     // the first bad cubin of each input
	pbad   []int       // and its position among the input's cubins
	noHost []bool      // a host object without host information (hostKernels)
	totals []objTotals // by batch: its objects' (Context.totals)
	// keep holds what pointer-free slabs point to on the heap (nil: the
	// slabs are typed memory; see noscanSlab); nfiles is how many paths
	// are the command line's strings (keptRefs).
	keep   *objKeep
	nfiles int
	// tables is where decodeInfo puts the decoded relocations.
	tables func(int) []byte
}

// readInputs reads, parses and decodes every path on the workers, in
// batches of consecutive inputs, each with a few system calls where the
// system has io_uring (input.Ring), else one system call at a time, which
// leaves the CPU idle: then more workers. Decoded tables holding pointers
// take only mapped memory (AllocMapped: nil, so typed Go allocations, when
// there is none; see elf.ParseInto); what is kept: see the pass's header.
func readInputs(ctx *Context, paths []string, nfiles int, arch input.Target) *loaded {
	n := len(paths)
	l := &loaded{objs: make([][]*Obj, n), sizes: make([]int64, n), errs: make([]error, n),
		perrs: make([]error, n), pbad: make([]int, n), noHost: make([]bool, n), nfiles: nfiles,
		tables: ctx.tables.AllocMapped}
	mem := &input.Memory{Keep: ctx.mem.Alloc, Tables: ctx.mem.AllocMapped, Symbols: ctx.tables.AllocMapped, Names: ctx.names.AllocMapped, Drop: decodedOnly, Zeros: ctx.mem.Zeros,
		Workers: workers(ctx.Opts.Threads), MapFrom: mapFrom(ctx.Opts.MapFrom), JIT: ctx.Opts.JIT}
	rings := newRings(!ctx.Opts.NoRing)
	defer rings.close()
	// Without io_uring a worker waits on one system call at a time: more
	// workers, but for a link of one thread (cmd/warplink's small links,
	// whose few files are in the page cache: a worker more is a goroutine
	// to start for nothing).
	w := workers(ctx.Opts.Threads)
	if !rings.ok() && ctx.Opts.Threads != 1 {
		w *= 4
	}
	// (PTX is compiled on these goroutines, by child processes that run
	// whatever GOMAXPROCS a small link was given: see Options.JITWorkers.)
	w = max(w, ctx.Opts.JITWorkers)
	batch := batchSize(n, w, rings.ok(), input.OpenFileLimit())
	l.totals = make([]objTotals, (n+batch-1)/batch)
	l.keepSlabs(ctx, mem, n, batch)
	var done atomic.Int64 // bytes of cubins loaded so far (for Options.Reading)
	// The batches' File records (each with LoadFile's expander and unit)
	// go from one batch to the next, their pages warm (each is set anew
	// below); nothing that read keeps refers to them once their batch is
	// loaded, though the pool holds the last ones until it is collected.
	var records sync.Pool
	parallelFor((n+batch-1)/batch, w, func(b int) error {
		rec, _ := records.Get().(*[]input.File)
		if rec == nil || cap(*rec) < batch {
			rec = new([]input.File)
			*rec = make([]input.File, batch)
		}
		defer records.Put(rec)
		files := (*rec)[:min(batch, n-b*batch)]
		for k := range files {
			files[k] = input.File{Path: paths[b*batch+k]}
		}
		r := rings.get()
		mem.ReadBatch(r, files)
		rings.put(r)
		var size int64
		slab, bk := l.batchSlab(b, len(files))
		for k := range files {
			slot := &slab[k]
			files[k].Into = &slot.file
			l.load(ctx, mem, arch, b*batch+k, &files[k], slot, bk, k)
			size += l.sizes[b*batch+k]
			l.totals[b].addAll(l.objs[b*batch+k]) // (while their tables are in the cache)
		}
		if ctx.Opts.Reading != nil {
			ctx.Opts.Reading(done.Add(size))
		}
		return nil
	})
	return l
}

// load parses input i, read into file, and decodes the tables of its
// cubins into slot i. An input of many cubins (an archive of host
// objects) is decoded on every worker; the first bad cubin by position is
// recorded either way (parallelFor's error is its lowest failing index's).
// With keep (a pointer-free slab: noscanSlab), the slot is the batch's
// place-th, and keep holds what it points to on the heap.
// NOTE: runs concurrently with the loads of other inputs; it writes only
// slot i (and keep, its batch's).
func (l *loaded) load(ctx *Context, mem *input.Memory, arch input.Target, i int, file *input.File, slot *objSlot, keep *batchKeep, place int) {
	units, err := input.LoadFile(file, arch, ctx.Diags, i, nil, mem)
	l.noHost[i] = file.NoHostInfo
	if err != nil {
		l.errs[i] = err
		return
	}
	defer mem.Release(units)
	objs := make([]*Obj, len(units))
	l.objs[i] = objs
	for k := range units {
		l.sizes[i] += int64(units[k].Size)
	}
	w := 1
	if len(units) >= parallelUnits {
		w = ctx.Opts.Threads
	}
	mapped := input.Mapped(units) // (the dropped sections are read here)
	if len(units) == 1 {          // (the usual input: no closure on the heap)
		var slotNo uint8
		if keep != nil {
			slotNo = uint8(place + 1)
		}
		err = l.loadUnit(&units[0], &slot.obj, slotNo, file.Path, mapped, objs, 0)
	} else {
		err = parallelFor(len(units), w, func(k int) error {
			return l.loadUnit(&units[k], new(Obj), 0, file.Path, mapped, objs, k)
		})
	}
	if bad, ok := err.(badUnit); ok {
		l.perrs[i], l.pbad[i] = bad.err, bad.k
	}
	if keep != nil && len(units) == 1 && objs[0] == &slot.obj {
		keep.refs = keptRefs(keep.refs, slot, units[0].Name, file.Path, i < l.nfiles, units[0].ELF)
	} else if keep != nil {
		for _, o := range objs { // (on the heap: numberObjects's list is pointer-free)
			keep.refs = append(keep.refs, unsafe.Pointer(o))
		}
	}
}

// loadUnit decodes unit k of an input into o (its slot's for the usual
// input, one cubin: see objSlot; else a new one) and records it in
// objs[k]. slotNo is o's Obj.slot (0: not in a pointer-free slab).
func (l *loaded) loadUnit(u *input.Unit, o *Obj, slotNo uint8, path string, mapped bool, objs []*Obj, k int) error {
	f := u.ELF // (u.Data may be cut or compacted: not parsed again)
	*o = Obj{Name: u.Name, F: f, System: u.System,
		overlaps: !u.InOrder && sectionsOverlap(f)} // (the compact parse checked it)
	o.slot = slotNo // (before more)
	o.setHost(u.ModuleID, u.HostKernels)
	if o.overlaps {
		o.more() // (relocate adds private copies to it: relocTargetData)
	}
	if err := input.Guard(path, mapped, func() error { return o.decodeInfo(l.tables) }); err != nil {
		return badUnit{k, err}
	}
	objs[k] = o
	return nil
}

// numberObjects reports the first failed input, in command-line order,
// and otherwise gives every object its file ID (its position in the
// expanded input list) and appends it to Context.Objs. A bad cubin is
// reported under the file ID it would have had.
func numberObjects(ctx *Context, l *loaded, nfiles int) error {
	devrtFirst := devrtBeforeObjects(ctx, l.objs[:nfiles])
	for _, err := range l.errs {
		if devrtFirst {
			return errFatal
		}
		if err == nil {
			continue // (before errors.As, whose target escapes: a heap object an input)
		}
		var fe *input.FatalError
		if errors.As(err, &fe) {
			return errFatal
		}
		return err
	}
	if l.keep != nil {
		// (Pointer-free: the slabs and the objects on the heap are held
		// by the keep.)
		n := 0
		for i := range l.objs {
			n += len(l.objs[i])
		}
		ctx.Objs = growRecords(ctx.Objs, n)
	}
	for i := range l.objs {
		if l.perrs[i] != nil {
			ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, len(ctx.Objs)+l.pbad[i], 0), "%v", l.perrs[i])
			return errFatal
		}
		for _, o := range l.objs[i] {
			o.ID = len(ctx.Objs)
			ctx.Objs = append(ctx.Objs, o)
		}
	}
	return nil
}

// outputHeader is the output's ELF header: the first object's, for the
// target's SM (code of a lower SM of the same family links unchanged:
// elf.SMCompatible), with the lowest virtual architecture of all (e_flags
// bits 16-23 of CUDA 11's cubins: nvlink 11.8 writes compute_75 for
// objects of compute_75 and compute_80 code for sm_90, compute_80 for
// sm_86 and sm_80 objects linked for sm_86, whatever their order; crafted
// virtual-arch-lowest), and the release's ELF version and flags; without
// objects, defaultHeader.
func outputHeader(ctx *Context, arch int) elf.Header {
	if len(ctx.Objs) == 0 {
		return defaultHeader(arch)
	}
	h := ctx.Objs[0].F.Header
	if h.Ident[7] != 0x41 {
		v := h.Flags >> 16 & 0xFF
		for _, o := range ctx.Objs[1:] {
			v = min(v, o.F.Header.Flags>>16&0xFF)
		}
		h.Flags = h.Flags&^0xFF0000 | v<<16
	}
	h.SetSM(arch)
	if ctx.Rel.ELFVersion != 0 && h.Ident[7] != 0x41 {
		h.Version = ctx.Rel.ELFVersion
	}
	if top, ok := ctx.Rel.FlagsTop[h.Flags>>24]; ok && h.Ident[7] == 0x41 {
		h.Flags = h.Flags&0xFFFFFF | top<<24
	}
	return h
}

// devrtBeforeObjects records nvlink 11.8's "unexpected object after
// cudadevrt" and reports it: the device runtime's archive given by its
// path (files names the objects of each file input, in command-line
// order), with nothing before it using what it defines, and an object
// after it (crafted devrt-before-objects). nvlink reads libraries (-l)
// after every file, and an archive the earlier objects need is taken
// there and then.
func devrtBeforeObjects(ctx *Context, files [][]*Obj) bool {
	if !slices.ContainsFunc(files, func(objs []*Obj) bool { return len(objs) > 0 && objs[0] != nil && objs[0].System }) {
		return false // (the usual link: no names gathered)
	}
	wanted := map[string]bool{}
	for i, objs := range files {
		// (An input that failed to decode holds nil objects: read
		// reports it once this returns.)
		if len(objs) > 0 && objs[0] != nil && objs[0].System {
			used := false
			for _, o := range objs {
				used = used || o != nil && definesAny(o, wanted)
			}
			if !used {
				for j := i + 1; j < len(files); j++ {
					if len(files[j]) > 0 {
						ctx.Diags.Fatalf(diag.At(diag.PhaseInputs, j, 0), "unexpected object after cudadevrt")
						return true
					}
				}
			}
		}
		for _, o := range objs {
			if o != nil && !o.System {
				o.addUndefined(wanted)
			}
		}
	}
	return false
}

// badUnit is the first cubin of an input whose tables did not decode.
type badUnit struct {
	k   int
	err error
}

func (b badUnit) Error() string { return b.err.Error() }

// parallelUnits is the least number of cubins one input (an archive of
// host objects) brings for which read decodes their tables on every
// worker, not only on the one that read the input (10,000 generated
// objects in one archive: 28 ms of decoding).
const parallelUnits = 64

// decodedOnly reports the sections whose bytes no pass reads after read:
// the symbol table and its extension (elf.File.Symbols) and the relocation
// sections (Obj.relSecs).
func decodedOnly(s *elf.Section) bool {
	switch s.Type {
	case elf.SHTSymtab, elf.SHTSymtabShndx, elf.SHTRel, elf.SHTRela:
		return true
	}
	return false
}

// sectionsOverlap reports whether two sections with file contents share
// bytes (only malformed inputs do; see relocate): their Data, which alias
// the one buffer the file was parsed from, share memory. ptxas lays
// sections out in index order, so one pass without allocating settles the
// usual case; only an input out of that order is sorted.
func sectionsOverlap(f *elf.File) bool {
	at := func(s *elf.Section) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(s.Data()))) }
	var end uintptr
	inOrder := true
	for i := range f.Sections {
		s := &f.Sections[i]
		if len(s.Data()) == 0 {
			continue
		}
		if at(s) < end {
			inOrder = false
			break
		}
		end = at(s) + uintptr(len(s.Data()))
	}
	if inOrder {
		return false
	}
	type span struct{ lo, hi uintptr }
	var spans []span
	for i := range f.Sections {
		if s := &f.Sections[i]; len(s.Data()) > 0 {
			spans = append(spans, span{at(s), at(s) + uintptr(len(s.Data()))})
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			return true
		}
	}
	return false
}

// mayBeArchive reports whether path may name an archive (nvlink expands an
// archive once however often it is named). Device and host objects named by
// their usual extensions are not opened twice to find out.
func mayBeArchive(path string) bool {
	switch filepath.Ext(path) {
	case ".cubin", ".o", ".fatbin", ".ptx":
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [8]byte
	n, _ := io.ReadFull(f, b[:])
	return ar.IsArchive(b[:n])
}

// defaultHeader is the ELF header of an output with no input objects (every
// input was skipped): nvlink 11.8's legacy cubin header for the target.
func defaultHeader(sm int) elf.Header {
	h := elf.Header{Machine: elf.EMCUDA, Version: 0x76,
		Flags: uint32(sm) | 0x500 | uint32(sm)<<16}
	copy(h.Ident[:], []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0x33, 7})
	return h
}

// decodeInfo decodes every relocation section of the object once, in
// the parallel read pass (later passes use Obj.relocs), into memory from
// alloc (their list too, Obj.relSecs, which points there), and checks its
// .nv.info sections, whose records later passes decode again where they
// read them (Obj.info: for a decoding of some 50 ns a section, 12 records
// of 32 bytes an object less in Context.tables, whose pages stay resident
// to the end). Only the sections that have relocations take space (an
// object has a handful among tens of sections).
func (o *Obj) decodeInfo(alloc func(int) []byte) error {
	nrel := 0
	o.cg, o.proto, o.infos = 0, 0, 0
	o.infoLast, o.cgRecords, o.globalInfo = 0, 0, 0
	if t := o.F.SecNameTable(); len(t) > 0 {
		o.shstrtab = unsafe.SliceData(t)
	}
	for si := range o.F.Sections {
		switch o.F.Sections[si].Type {
		case elf.SHTRela, elf.SHTRel:
			nrel++
		case elf.SHTCudaInfo:
			o.infos.note(si)
			o.infoLast = int32(si)
			if o.F.SecNameIs(si, ".nv.info") {
				o.noteGlobalInfo(si)
			}
		case elf.SHTCudaCallgraph:
			o.cg.note(si)
			o.cgRecords += int32(len(o.F.Sections[si].Data()) / 8)
		case elf.SHTCudaPrototype:
			o.proto.note(si)
		}
	}
	for i := range o.F.Symbols {
		if s := &o.F.Symbols[i]; s.Shndx == elf.SHNUndef && s.Bind() == elf.STBLocal && s.Name == ptxConst0Size {
			r := o.more()
			r.const0Size = append(r.const0Size, int32(i))
		}
	}
	o.relSecs = elf.SliceOf[relocSec](nrel, alloc)[:0]
	for si := range o.F.Sections {
		s := &o.F.Sections[si]
		if s.Type == elf.SHTRela || s.Type == elf.SHTRel {
			rels, err := elf.RelocsInto(o.F, si, len(o.F.Symbols), alloc)
			if err != nil {
				return fmt.Errorf("%v in '%s'", err, o.Name)
			}
			o.relSecs = append(o.relSecs, relocSec{int32(si), rels})
			if !plainRelocs(o.F, s, rels) {
				o.more().oddRelocs = true
			}
			continue
		}
		if s.Type != elf.SHTCudaInfo {
			continue
		}
		if err := checkInfo(s.Data()); err != nil {
			return fmt.Errorf("%v in '%s'", err, o.Name)
		}
	}
	return nil
}

// checkInfo checks that the .nv.info section b decodes
// (elf.AppendNvInfoRecords' error when not), walking its records without
// keeping them, and rejects an EIATTR_REGCOUNT record without a count (a
// payload of less than the function's symbol and its count: 8 bytes),
// which propagateRegCount would have to raise; a decoding error anywhere
// in b comes first. nvlink 11.8 fails on such a record with "Internal
// error: no regcount?", call edges or not
// (testdata/malformed/nvinfo-regcount-short.cubin).
func checkInfo(b []byte) error {
	var short error
	for off := 0; off < len(b); {
		a, next, err := elf.NextNvInfo(b, off)
		if err != nil {
			return err
		}
		if a.Code == elf.EIAttrRegcount && len(a.Payload) < 8 && short == nil {
			short = fmt.Errorf(".nv.info record 0x%x (EIATTR_REGCOUNT) at offset 0x%x has size %d, too short for a register count", a.Code, off, len(a.Payload))
		}
		off = next
	}
	return short
}

// typedSecs finds an object's sections of one type without going over
// its section records again (at 100,000 objects those are 112 MB, which
// three passes read for one section each): 1 + the index of the first
// (0: none), negated when there are others (4 bytes: an Obj holds three).
type typedSecs int32

// note records section si, in section order.
func (t *typedSecs) note(si int) {
	if *t == 0 {
		*t = typedSecs(si) + 1
	} else if *t > 0 {
		*t = -*t
	}
}

// first is the index of the first section noted (-1: none); more
// reports others after it.
func (t typedSecs) first() int { return int(max(t, -t)) - 1 }
func (t typedSecs) more() bool { return t < 0 }

// each calls fn for each section of o of type typ that t noted, in
// section order.
func (t typedSecs) each(o *Obj, typ uint32, fn func(s *elf.Section)) {
	if t == 0 {
		return
	}
	fn(&o.F.Sections[t.first()])
	if t.more() {
		for si := t.first() + 1; si < len(o.F.Sections); si++ {
			if s := &o.F.Sections[si]; s.Type == typ {
				fn(s)
			}
		}
	}
}

// eachCallgraph calls fn for each .nv.callgraph section of o, in section
// order (the one an object has, found by decodeInfo).
func (o *Obj) eachCallgraph(fn func(s *elf.Section)) {
	o.cg.each(o, elf.SHTCudaCallgraph, fn)
}

// eachPrototype calls fn for each .nv.prototype section of o, in section
// order.
func (o *Obj) eachPrototype(fn func(s *elf.Section)) {
	o.proto.each(o, elf.SHTCudaPrototype, fn)
}

// relocSec is the decoded relocations of input section si.
type relocSec struct {
	si   int32
	rels []elf.Rela
}

// infoBuf is the room for .nv.info records a decoding of one section has
// on its caller's stack (Obj.info): a cubin's .nv.info holds about ten,
// its .nv.info.<f> a few more; a larger one grows onto the heap.
const infoBuf = 64

// info returns the records of input .nv.info section si appended to buf
// (buf[:0] of a caller's [infoBuf]elf.Attr, whose records it overwrites
// on the next call), nil if si is not one. read checked that they decode
// (decodeInfo); they alias the section's contents.
func (o *Obj) info(si int, buf []elf.Attr) []elf.Attr {
	if si <= 0 || si >= len(o.F.Sections) || o.F.Sections[si].Type != elf.SHTCudaInfo {
		return nil
	}
	attrs, _ := elf.AppendNvInfoRecords(buf, o.F.Sections[si].Data())
	return attrs
}

// noteGlobalInfo records .nv.info section si of o as its global one,
// named .nv.info, not .nv.info.<f> (decodeInfo: the names are gone after
// merge, releaseNames).
func (o *Obj) noteGlobalInfo(si int) {
	switch {
	case o.globalInfo == 0:
		o.globalInfo = int32(si) + 1
	case o.globalInfo > 0:
		o.more().globalInfos = []int32{o.globalInfo - 1, int32(si)}
		o.globalInfo = -1
	default:
		o.rare.globalInfos = append(o.rare.globalInfos, int32(si))
	}
}

// plainRelocs reports whether the relocations rels of section s of f
// apply inside their target section and are of types relocate knows (or
// drops first, skipReloc): it reports the others by their sections'
// names, which are gone after merge (releaseNames keeps them then).
func plainRelocs(f *elf.File, s *elf.Section, rels []elf.Rela) bool {
	if s.Info == 0 || int(s.Info) >= len(f.Sections) {
		return len(rels) == 0
	}
	size := f.Sections[s.Info].Size
	for _, r := range rels {
		if droppedType(r.Type) {
			continue // (skipReloc drops them first)
		}
		if _, known := relocField(r.Type); !known || r.Offset >= size {
			return false
		}
	}
	return true
}

// isConst0Size reports whether input symbol i of o is a local undefined
// ptxConst0Size (noted by decodeInfo: the names are gone after merge).
func (o *Obj) isConst0Size(i uint32) bool {
	return o.rare != nil && slices.Contains(o.rare.const0Size, int32(i))
}

// isGlobalInfo reports whether .nv.info section si of o is a global one
// (noteGlobalInfo).
func (o *Obj) isGlobalInfo(si int) bool {
	if o.globalInfo >= 0 {
		return int(o.globalInfo) == si+1
	}
	return slices.Contains(o.rare.globalInfos, int32(si))
}

// eachInfoSection calls fn for each .nv.info section of o (the global
// .nv.info and each .nv.info.<f>), in section order.
func (o *Obj) eachInfoSection(fn func(si int, s *elf.Section)) {
	if o.infos == 0 {
		return
	}
	last := min(int(o.infoLast), len(o.F.Sections)-1)
	for si := o.infos.first(); si <= last; si++ {
		if s := &o.F.Sections[si]; s.Type == elf.SHTCudaInfo {
			fn(si, s)
		}
	}
}

// secSearch is sort.Search over n entries in increasing order of their
// section index (at(i)) for the first at or past si; at is inlined, unlike
// sort.Search's predicate (merge looks up every code section's records).
func secSearch(n, si int, at func(i int) int32) int {
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(at(m)) < si {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// relocs returns the decoded relocations of input section si (nil if it
// is not a relocation section).
func (o *Obj) relocs(si int) []elf.Rela {
	i := secSearch(len(o.relSecs), si, func(i int) int32 { return o.relSecs[i].si })
	if i < len(o.relSecs) && int(o.relSecs[i].si) == si {
		return o.relSecs[i].rels
	}
	return nil
}

// eachRelocSection calls fn for each relocation section of the object, with
// the index of the section it applies to and its decoded entries, in
// section order.
func (o *Obj) eachRelocSection(fn func(target int, rels []elf.Rela)) {
	for _, r := range o.relSecs {
		if r.rels == nil {
			continue
		}
		if t := int(o.F.Sections[r.si].Info); t > 0 && t < len(o.F.Sections) {
			fn(t, r.rels)
		}
	}
}

// mapFrom is the input size from which read maps files (see
// Options.MapFrom; 0: never).
func mapFrom(opt int64) int64 {
	switch {
	case opt < 0:
		return 0
	case opt == 0:
		return mapInputsFrom
	}
	return opt
}

// mapInputsFrom is the file size from which read maps an input by
// default: 1 MiB, more than any cubin or host object of the benchmark's
// (libcudadevrt.a is just under it). Mapped, a file's bytes are not
// copied into a buffer that had to be zeroed first; read, a few system
// calls serve many small files (input.Ring), where a mapping each would
// cost two and a page fault or more.
const mapInputsFrom = 1 << 20
