// Package input turns the files on a link command line into relocatable
// cubins, the way nvlink 11.8 classifies and expands them: cubins, fatbins,
// PTX, host objects from nvcc -dc, and archives of host objects. Its
// diagnostics and their severities are nvlink's (see docs/inputs.md).
package input

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/warplink/warplink/actors"
	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/ar"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/elf/hostobj"
	"github.com/warplink/warplink/internal/diag"
)

// probeSize is how many bytes nvlink reads to classify a non-archive input
// (an ELF32 header); shorter files "could not be opened".
const probeSize = 52

// Unit is one relocatable cubin to link.
type Unit struct {
	// Name is how nvlink names the unit in diagnostics: the path as given
	// ("main.cubin", "dir/a.o") or "archive:member" ("libdev.a:lib.o").
	Name string
	// Data is the ET_REL cubin for the target SM (decompressed if needed),
	// or with LoadInto's Memory.Keep only its sections' contents.
	Data []byte
	// Size is the cubin's whole size.
	Size int
	// Path is the file the unit came from (the archive for its members, the
	// member's own file for thin archives).
	Path        string
	FromArchive bool
	// System marks units from libcudadevrt (an archive whose path contains
	// "cudadevrt"); nvlink drops those nothing uses unless
	// --keep-system-libraries is given, and their unused functions
	// either way.
	System bool
	// ModuleID is the __nv_module_id of the host object the unit came from.
	ModuleID string
	// HostKernels are the kernel name patterns the host code of the host
	// object the unit came from references (hostobj.Object; an input
	// without that information marks its File.NoHostInfo).
	HostKernels []string
	// ELF is the decoded cubin (Data may hold only part of the file it
	// came from: see LoadInto).
	ELF *elf.File
	// InOrder: the cubin's sections were found laid out in index order
	// without overlaps (elf.ParseCompact checks it; false: not known).
	InOrder bool

	scratch *[]byte // the scratch buffer, held until Memory.Release (first unit of a file only)
	mapped  []byte  // the file's mapping, unmapped by Memory.Release (first unit of a mapped file only)
	// src is what the cubin was parsed from (the scratch buffer, or a
	// member decompressed or read on its own): its dropped sections point
	// there until Memory.Release, from tables the collector may not scan,
	// so this reference keeps it alive.
	src []byte
}

// FatalError is returned when a fatal diagnostic was recorded: nvlink stops
// with exit status 1. The message is already in the diagnostics bag.
type FatalError struct{ Msg string }

func (e *FatalError) Error() string { return e.Msg }

// expander carries the state of one Expand call.
type expander struct {
	alloc   func(int) []byte        // memory of parsed tables (nil: make; see elf.ParseInto)
	syms    func(int) []byte        // with keep, memory of the symbol tables (nil: alloc; see Memory.Symbols)
	keep    func(int) []byte        // memory the kept cubins are copied to (nil: they alias the input)
	names   func(int) []byte        // with keep: memory of their string tables (see Memory.Names)
	drop    func(*elf.Section) bool // with keep: sections only decoded (see Memory.Drop)
	zeros   func(int) []byte        // with keep: shared zeros for all-zero sections (see Memory.Zeros)
	arch    int                     // the target's SM number
	virtual bool                    // the target is compute_<arch> (see Target)
	diags   *diag.Bag
	file    int
	seq     int
	workers int  // goroutines for a large archive's members (<= 1: one; see archive)
	mapped  bool // the file is mapped: what reads it runs under Guard
	// noHostInfo, when set, records a host object without host reference
	// information (shared by the copies archiveParallel makes).
	noHostInfo *uint32  // (set to 1 with atomic.StoreUint32)
	jit        Compiler // compiles PTX (nil: a PTX-only input is fatal)
	// into is where a file named .cubin is decoded (File.Into; nil: a new
	// record), taken by its one parse (parse) and by no other file's;
	// unit, where cubin puts its unit (nil: a new slice), likewise.
	into *elf.File
	unit *[1]Unit
}

func (x *expander) key() diag.Key {
	x.seq++
	return diag.At(diag.PhaseInputs, x.file, x.seq)
}

func (x *expander) fatal(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	x.diags.Fatalf(x.key(), "%s", msg)
	return &FatalError{msg}
}

// runs reports whether a cubin for SM sm is taken for the target: code
// that runs there (elf.SMCompatible); for a virtual target compute_<n>,
// any SM up to n (nvlink 11.8 and 12.5: crafted virtual-target-compatible).
func (x *expander) runs(sm int) bool {
	if x.virtual {
		return sm <= x.arch
	}
	return elf.SMCompatible(sm, x.arch)
}

// target is the target's name in messages: sm_<n>, or compute_<n> for a
// virtual target.
func (x *expander) target() string { return Target{SM: x.arch, Virtual: x.virtual}.String() }

// Target is the architecture inputs are read for: SM number SM, and
// Virtual for -arch=compute_<SM>, which nvlink reads and checks the
// inputs for as for sm_<SM> (compiling PTX and NVVM IR for it) and names
// as given in its messages.
type Target struct {
	SM      int
	Virtual bool
}

func (t Target) String() string {
	if t.Virtual {
		return fmt.Sprintf("compute_%d", t.SM)
	}
	return fmt.Sprintf("sm_%d", t.SM)
}

// Seen remembers the archives already expanded: nvlink expands an archive
// file once, however it is named again (another path, a symlink, -l).
type Seen struct{ files []os.FileInfo }

// Add reports whether the file at path was not seen before, and records it.
func (s *Seen) Add(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return true
	}
	for _, f := range s.files {
		if os.SameFile(f, fi) {
			return false
		}
	}
	s.files = append(s.files, fi)
	return true
}

// Load reads the input at path and expands it. seen, if not nil, makes a
// second mention of an archive expand to nothing.
func Load(path string, t Target, diags *diag.Bag, fileID int, seen *Seen) ([]Unit, error) {
	return LoadInto(path, t, diags, fileID, seen, &Memory{})
}

// Memory says where LoadInto reads files and puts what it keeps. The zero
// Memory keeps everything on the Go heap, aliasing the file as read.
type Memory struct {
	// Keep, when not nil, takes the bytes of each cubin that the link keeps
	// (see LoadInto); it must return zeroed bytes of the length asked that
	// stay valid while the units are used.
	Keep func(int) []byte
	// Tables places the cubins' parsed tables (see elf.ParseInto; nil: make).
	Tables func(int) []byte
	// Symbols, with Keep, places their symbol tables instead (nil:
	// Tables), for a caller that frees those first (elf.ParseCompact).
	Symbols func(int) []byte
	// Names, with Keep, takes the string tables of the cubins that
	// elf.ParseCompact takes (nil, or nil from it: Keep), for a caller
	// done with the names before the rest.
	Names func(int) []byte
	// Drop, with Keep, names the sections that are only decoded, not kept
	// (elf.ParseCompact): until Release, their Data points into the
	// scratch buffer the file was read into; Release clears it.
	Drop func(*elf.Section) bool
	// Zeros, with Keep, stands in for the copy of a kept section whose
	// contents are all zeros and that no relocation patches (see
	// elf.ParseCompact): n zero bytes never written, or nil for a copy.
	Zeros func(int) []byte
	// Workers, when over 1, is how many goroutines expand the members of
	// an archive of at least parallelMembers members (see
	// expander.archive); the units, their order and the diagnostics are
	// the same as from one.
	Workers int
	// MapFrom, with Keep, is the size from which a regular file is mapped
	// (copy-on-write) instead of read into a scratch buffer, until
	// Release (0: never; a Ring's first read takes files of up to 16 KiB
	// whole whatever it is). A large archive is then neither copied nor
	// zeroed; small files are read, a few system calls for many (Ring),
	// and never all mapped at once, which a link of 100,000 objects could
	// not do within the process's map count.
	MapFrom int64
	// JIT, when not nil, compiles the PTX of inputs without code for the
	// target (nvlink's embedded ptxas; package jit).
	JIT Compiler

	scratch sync.Pool // *[]byte: the buffers files are read into with Keep
}

// Release ends the use of the sections mem.Drop names in units, which a
// LoadInto with mem.Drop returned (their Data is cleared), and lets the
// scratch buffer they pointed into be reused, or unmaps the file they
// pointed into (MapFrom). Without it, a table outside
// the Go heap could point into a buffer the collector has freed.
func (mem *Memory) Release(units []Unit) {
	if mem.Drop == nil {
		return
	}
	for k := range units {
		u := &units[k]
		if u.ELF != nil {
			for i := range u.ELF.Sections {
				if s := &u.ELF.Sections[i]; mem.Drop(s) {
					s.SetData(nil)
				}
			}
		}
		u.src = nil
	}
	if len(units) > 0 && units[0].scratch != nil {
		mem.scratch.Put(units[0].scratch)
		units[0].scratch = nil
	}
	if len(units) > 0 && units[0].mapped != nil {
		unmapFile(units[0].mapped)
		units[0].mapped = nil
	}
}

// LoadInto is Load with memory from mem. With mem.Keep, the file is read
// into a reused scratch buffer and of each cubin taken from it only its
// sections' contents are copied to memory from Keep (elf.ParseCompact;
// whole when its sections are out of order), less those mem.Drop names,
// which the caller decodes before calling mem.Release. The host code of
// host objects, the rest of archives, the section headers and the
// padding do not stay in memory for the whole link. The units alias that
// copy.
func LoadInto(path string, t Target, diags *diag.Bag, fileID int, seen *Seen, mem *Memory) ([]Unit, error) {
	f := []File{{Path: path}}
	mem.ReadBatch(nil, f)
	return LoadFile(&f[0], t, diags, fileID, seen, mem)
}

// load expands the file at path, read as data (or not, with readErr).
func (x *expander) load(path string, data []byte, readErr error, seen *Seen) ([]Unit, error) {
	if readErr != nil {
		return nil, x.fatal("Could not open input file '%s'", path)
	}
	if seen != nil && isArchiveInput(path, data) && !seen.Add(path) {
		return nil, nil
	}
	return x.expand(path, data)
}

// isArchiveInput reports whether Expand treats the file as an archive.
func isArchiveInput(path string, data []byte) bool {
	switch filepath.Ext(path) {
	case ".cubin", ".fatbin", ".ptx":
		return false
	}
	return ar.IsArchive(data)
}

// Expand classifies one command-line input and returns the cubins it
// contributes for target t. The extension decides first (.cubin,
// .fatbin, .ptx); other files are classified by content: archives, device
// ELF (cubin), host ELF (fatbinary in __nv_relfatbin); anything else,
// and every .so, is silently ignored. Diagnostics go to diags, keyed
// (0, fileID, n); a non-nil error is a *FatalError.
func Expand(path string, data []byte, t Target, diags *diag.Bag, fileID int) ([]Unit, error) {
	x := &expander{arch: t.SM, virtual: t.Virtual, diags: diags, file: fileID}
	return x.expand(path, data)
}

func (x *expander) expand(path string, data []byte) ([]Unit, error) {
	into, unit := x.into, x.unit
	x.into, x.unit = nil, nil // (a .cubin's alone: other inputs' members may be parsed on several goroutines)
	isAr := ar.IsArchive(data)
	if !isAr && len(data) < probeSize {
		return nil, x.fatal("Could not open input file '%s'", path)
	}
	switch filepath.Ext(path) {
	case ".cubin":
		if !elf.IsELF(data) {
			return nil, x.fatal("cubin not an elf?")
		}
		x.into, x.unit = into, unit
		return x.noHostInfoIf(path)(x.cubin(path, path, data, true))
	case ".fatbin":
		if !fatbin.IsFatbin(data) {
			return nil, x.fatal("fatbin wrong format?")
		}
		c, err := fatbin.ParseFirst(data)
		if err != nil {
			return nil, x.fatal("fatbin wrong format?")
		}
		return x.noHostInfoIf(path)(x.members(path, path, c.Members, true))
	case ".ptx":
		return x.ptx(path, data)
	}
	switch {
	case isAr:
		return x.archive(path, data)
	case filepath.Ext(path) == ".so", !elf.IsELF(data), isDeviceELF(data):
		// (A device ELF is a cubin only by its name: nvlink 11.8 links
		// nothing of one named .o, .bin, .obj or without an extension.)
		return nil, nil
	}
	return x.host(path, path, data, true)
}

func isDeviceELF(b []byte) bool {
	return elf.IsELF(b) && len(b) >= 20 && b[18] == elf.EMCUDA&0xFF && b[19] == elf.EMCUDA>>8
}

// cubin validates a device ELF. strict (an explicit .cubin or .ptx name)
// makes a wrong machine or SM fatal; otherwise such files are ignored.
// Non-relocatable cubins are always ignored, as nvlink does.
func (x *expander) cubin(name, path string, data []byte, strict bool) ([]Unit, error) {
	size, src := len(data), data
	if x.drop == nil {
		src = nil // (nothing kept points into it)
	}
	data, f, inOrder, err := x.parse(data)
	if err != nil {
		if strict {
			return nil, x.fatal("'%s': %v", name, err)
		}
		return nil, nil
	}
	if f.Header.Machine != elf.EMCUDA {
		if strict {
			return nil, x.fatal("cubin not a device elf?")
		}
		return nil, nil
	}
	if f.Header.Type != elf.ETRel {
		return nil, nil
	}
	if !x.runs(f.Header.SM()) {
		if strict {
			return nil, x.fatal("Input file '%s' arch does not match target '%s'", name, x.target())
		}
		return nil, nil
	}
	u := Unit{Name: name, Data: data, Size: size, Path: path, ELF: f, InOrder: inOrder, src: src}
	if to := x.unit; to != nil {
		x.unit = nil
		to[0] = u
		return to[:], nil
	}
	return []Unit{u}, nil
}

// parse decodes a device ELF where the link keeps it: in place without
// x.keep; else copied to memory from x.keep, only the sections it holds
// that x.drop does not name (elf.ParseCompact). A cubin that does not
// parse so is copied whole and parsed again, so that its diagnostic is the
// same either way. It reports whether the compact parse took the cubin,
// which shows its sections in order without overlaps.
func (x *expander) parse(data []byte) ([]byte, *elf.File, bool, error) {
	if x.keep == nil {
		f, err := elf.ParseInto(data, x.alloc)
		return data, f, false, err
	}
	into := x.into
	x.into = nil
	if f, err := elf.ParseCompactTo(into, data, x.drop, x.keep, x.names, x.alloc, x.syms, x.zeros); err == nil {
		return f.Raw, f, true, nil
	}
	whole := x.keep(len(data))
	copy(whole, data)
	f, err := elf.ParseInto(whole, x.alloc)
	return whole, f, false, err
}

// ptx handles a .ptx input: nvlink hands it to its fatbinary reader, which
// accepts cubins and fatbins too; real PTX needs the embedded ptxas.
func (x *expander) ptx(path string, data []byte) ([]Unit, error) {
	switch {
	case isDeviceELF(data):
		return x.cubin(path, path, data, true)
	case fatbin.IsFatbin(data):
		c, err := fatbin.ParseFirst(data)
		if err != nil {
			return nil, x.fatal("fatbin wrong format?")
		}
		return x.members(path, path, c.Members, true)
	case IsPTXText(data):
		return x.jitPTX(path, path, data, nil, 0)
	}
	x.diags.Errorf(x.key(), "Binary format for key='0', ident='' is not recognized")
	return nil, x.fatal("elfLink fatbinary error")
}

// IsPTXText reports whether b looks like PTX source: text (no NUL) with
// a .version and a .target directive (internal/jit's scan reads PTX
// inputs by it too).
func IsPTXText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && bytes.Contains(b, []byte(".version")) && bytes.Contains(b, []byte(".target"))
}

// members picks the member for the target from a fatbinary. top marks a
// command-line input, for which a missing SM is worth a warning.
func (x *expander) members(name, path string, ms []fatbin.Member, top bool) ([]Unit, error) {
	if us, done, err := x.ir(name, path, ms); done {
		return us, err
	}
	i, choice := fatbin.Select(ms, x.arch)
	if x.virtual {
		i, choice = fatbin.SelectPTX(ms, x.arch)
	}
	switch choice {
	case fatbin.NoCode:
		if top {
			x.diags.Warnf(x.key(), "SM Arch ('%s') not found in '%s'", x.target(), name)
		}
		return nil, nil
	case fatbin.PTXOnly:
		ptx, err := ms[i].Contents()
		if err != nil {
			return nil, x.fatal("'%s': %v", name, err)
		}
		return x.jitPTX(name, path, bytes.TrimRight(ptx, "\x00"), ms[i].Options(), ms[i].Arch)
	}
	data, err := ms[i].Contents()
	if err != nil {
		return nil, x.fatal("'%s': %v", name, err)
	}
	if !isDeviceELF(data) {
		return nil, x.fatal("'%s': the %s member is not a device ELF", name, x.target())
	}
	return x.cubin(name, path, data, false)
}

// host takes the device code out of a host object. Objects that nvlink
// cannot read as 64-bit ELF, or without device code, are ignored.
func (x *expander) host(name, path string, data []byte, top bool) ([]Unit, error) {
	o, err := hostobj.Parse(data)
	if err != nil {
		return nil, nil
	}
	if !o.HostInfo {
		// Any host object without host reference information, device
		// code or not (a g++ object, nvcc -c without -rdc), makes nvlink
		// 11.8 ignore the others' (crafted host-info-host-object).
		x.markNoHostInfo(name)
	}
	if !o.HasDeviceCode() {
		return nil, nil
	}
	cs, err := fatbin.Parse(o.Fatbin)
	if err != nil {
		return nil, x.fatal("'%s': bad fatbinary in %s: %v", name, hostobj.RelFatbinSection, err)
	}
	var ms []fatbin.Member
	for _, c := range cs {
		ms = append(ms, c.Members...)
	}
	us, err := x.members(name, path, ms, top)
	for i := range us {
		us[i].ModuleID = o.ModuleID
		if us[i].HostKernels == nil { // (the LTO cubin has all IR inputs': ir)
			us[i].HostKernels = o.HostKernels
		}
	}
	return us, err
}

// archive expands every member (whole-archive semantics; the symbol index
// is ignored). Only host-object members contribute: nvlink ignores cubin,
// fatbin and other members, and BSD "#1/N" members. Thin members are read
// from the member's path relative to the archive's directory.
func (x *expander) archive(path string, data []byte) ([]Unit, error) {
	a, err := ar.Parse(data)
	if err != nil {
		return nil, x.fatal("'%s': %v", path, err)
	}
	system := strings.Contains(path, "cudadevrt")
	if x.workers > 1 && len(a.Members) >= parallelMembers {
		return x.archiveParallel(path, a, system)
	}
	var out []Unit
	for _, m := range a.Members {
		us, err := x.member(path, a.Thin, m, system)
		if err != nil {
			return nil, err
		}
		out = append(out, us...)
	}
	return out, nil
}

// member expands archive member m of the archive at path: nothing for a
// BSD member, a device ELF or anything but a host object.
func (x *expander) member(path string, thin bool, m ar.Member, system bool) ([]Unit, error) {
	if m.BSD {
		return nil, nil
	}
	name := path + ":" + m.Name
	mdata, mpath := m.Data, path
	if thin {
		mpath = m.Path
		if !filepath.IsAbs(mpath) {
			mpath = filepath.Join(filepath.Dir(path), mpath)
		}
		var err error
		if mdata, err = os.ReadFile(mpath); err != nil {
			return nil, x.fatal("Could not open input file '%s'", mpath)
		}
	}
	if !elf.IsELF(mdata) || isDeviceELF(mdata) {
		return nil, nil
	}
	us, err := x.host(name, mpath, mdata, false)
	if err != nil {
		return nil, err
	}
	for i := range us {
		us[i].FromArchive, us[i].System = true, system
	}
	return us, nil
}

// parallelMembers is the least member count for which archive expands
// members on x.workers goroutines: a static library of nvcc -dc objects
// is one input, which the read pass's workers would otherwise leave to
// one of them (10,000 generated objects in one archive: 0.22-0.24 s to
// link, against 0.17-0.18 s for the same objects given one by one).
const parallelMembers = 64

// archiveParallel is archive's loop over the members on x.workers
// goroutines. Each member is expanded by a copy of x that records its
// diagnostics in a bag of its own; then, in member order, the
// diagnostics are recorded in x's bag with the keys x would have given
// them, and the units kept, up to the first member that failed: the same
// units, diagnostics and error as the loop's.
func (x *expander) archiveParallel(path string, a *ar.Archive, system bool) ([]Unit, error) {
	type result struct {
		units []Unit
		err   error
		diags []diag.Diag
	}
	// (A member's failure is part of its result, not Map's error: the
	// members before it must still come out in order.)
	res, _ := actors.Map(context.Background(), len(a.Members), x.workers, func(j int) (result, error) {
		sub := *x
		sub.seq = 0
		sub.diags = &diag.Bag{Werror: x.diags.Werror, NoWarn: x.diags.NoWarn}
		var units []Unit
		err := Guard(path, x.mapped, func() (err error) {
			units, err = sub.member(path, a.Thin, a.Members[j], system)
			return err
		})
		return result{units, err, sub.diags.Recorded()}, nil
	})
	var out []Unit
	for j := range res {
		for _, d := range res[j].diags {
			d.Key = x.key()
			x.diags.Append(d)
		}
		if res[j].err != nil {
			return nil, res[j].err
		}
		out = append(out, res[j].units...)
	}
	return out, nil
}

// FindLibrary resolves -l<name> as nvlink 11.8 does: the first -L directory,
// in order, holding lib<name>.a that is not incompatible (see
// FindLibrarySkipping). There are no default directories and $LIBRARY_PATH
// is not consulted. ok is false when nothing is found; nvlink then goes on
// silently, without a diagnostic.
func FindLibrary(name string, libDirs []string) (path string, ok bool) {
	path, ok, _ = FindLibrarySkipping(name, libDirs)
	return path, ok
}

// FindLibrarySkipping is FindLibrary, also listing the archives it passed
// over as incompatible, for which nvlink warns "Skipping incompatible
// '<path>' when searching for -l<name>" and searches on: an archive none of
// whose members is a host ELF object (empty, as Debian's librt.a and
// libpthread.a, which CMake's link lines name; only cubins, made with ar;
// only other files). An archive with one host object among others counts
// as compatible, and a file that is no archive is taken as found.
func FindLibrarySkipping(name string, libDirs []string) (path string, ok bool, skipped []string) {
	for _, d := range libDirs {
		p := filepath.Join(d, "lib"+name+".a")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			if incompatibleArchive(p) {
				skipped = append(skipped, d+"/lib"+name+".a") // (as nvlink prints it: "./libx.a" for -L.)
				continue
			}
			return p, true, skipped
		}
	}
	return "", false, skipped
}

// incompatibleArchive reports whether the file at p is an archive without
// a host ELF member (FindLibrarySkipping). It reads member headers and the
// first bytes of each member only, stopping at the first host object, so a
// large library costs a few small reads.
func incompatibleArchive(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false // (the read pass reports it)
	}
	defer f.Close()
	var hdr [60]byte
	if n, _ := f.ReadAt(hdr[:8], 0); n != 8 || string(hdr[:8]) != "!<arch>\n" {
		return false // not a regular archive: taken as it is
	}
	for off := int64(8); ; {
		if n, _ := f.ReadAt(hdr[:], off); n != len(hdr) {
			return true
		}
		size, err := strconv.ParseInt(strings.TrimSpace(string(hdr[48:58])), 10, 64)
		if err != nil || size < 0 {
			return false // malformed: the read pass reports it
		}
		var head [20]byte
		if n, _ := f.ReadAt(head[:], off+60); n == len(head) && string(head[:4]) == "\x7fELF" {
			machine := uint16(head[18]) | uint16(head[19])<<8
			if head[5] == 2 { // big-endian
				machine = uint16(head[18])<<8 | uint16(head[19])
			}
			if machine != elf.EMCUDA {
				return false
			}
		}
		off += 60 + size + size&1
	}
}

// markNoHostInfo records that the input named name has no host reference
// information (libcudadevrt's objects do not count, as in nvlink 11.8:
// a name holding "cudadevrt").
func (x *expander) markNoHostInfo(name string) {
	if x.noHostInfo != nil && !strings.Contains(name, "cudadevrt") {
		atomic.StoreUint32(x.noHostInfo, 1)
	}
}

// noHostInfoIf passes an expansion's result on, marking the input as
// without host reference information when it made cubins (a cubin or
// fatbinary given directly: crafted host-info-incomplete).
func (x *expander) noHostInfoIf(name string) func([]Unit, error) ([]Unit, error) {
	return func(us []Unit, err error) ([]Unit, error) {
		if len(us) > 0 {
			x.markNoHostInfo(name)
		}
		return us, err
	}
}
