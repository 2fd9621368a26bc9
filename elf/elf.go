// Package elf decodes and encodes the ELF64 files the CUDA toolchain
// writes: relocatable and executable cubins (e_machine 190) and the host
// objects that carry fatbinaries. It is pure: functions over []byte, no
// goroutines, no I/O. Every offset, size, count and index read from a file
// is checked before use; malformed input yields an *Error, never a panic.
package elf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"
)

// ELF constants used by cubins.
const (
	EMCUDA = 190

	ETRel  = 1
	ETExec = 2

	SHTNull        = 0
	SHTProgbits    = 1
	SHTSymtab      = 2
	SHTStrtab      = 3
	SHTRela        = 4
	SHTNote        = 7
	SHTNobits      = 8
	SHTRel         = 9
	SHTSymtabShndx = 18

	// CUDA section types (SHT_LOPROC + n).
	SHTCudaInfo           = 0x70000000
	SHTCudaCallgraph      = 0x70000001
	SHTCudaPrototype      = 0x70000002
	SHTCudaResolvedRela   = 0x70000003
	SHTCudaMetadata       = 0x70000004
	SHTCudaGlobal         = 0x70000007
	SHTCudaGlobalInit     = 0x70000008
	SHTCudaLocal          = 0x70000009
	SHTCudaShared         = 0x7000000A
	SHTCudaRelAction      = 0x7000000B
	SHTCudaUft            = 0x7000000E
	SHTCudaUftEntry       = 0x70000011
	SHTCudaUdt            = 0x70000012
	SHTCudaUdtEntry       = 0x70000014
	SHTCudaSharedReserved = 0x70000015
	SHTCudaConstant0      = 0x70000064 // + bank
	SHTCudaCompat         = 0x70000086

	SHFWrite     = 0x1
	SHFAlloc     = 0x2
	SHFExecInstr = 0x4
	SHFInfoLink  = 0x40

	SHNUndef     = 0
	SHNLoReserve = 0xFF00
	SHNAbs       = 0xFFF1
	SHNCommon    = 0xFFF2
	SHNXindex    = 0xFFFF

	STBLocal  = 0
	STBGlobal = 1
	STBWeak   = 2

	STTNotype  = 0
	STTObject  = 1
	STTFunc    = 2
	STTSection = 3
	STTFile    = 4

	PTLoad = 1
	PTPhdr = 6

	EhdrSize = 64
	ShdrSize = 64
	PhdrSize = 56
	SymSize  = 24
	RelaSize = 24
	RelSize  = 16
)

// MaxAlign is the largest section alignment Parse accepts in a relocatable
// cubin: real cubins align to at most 128 bytes, and a forged huge
// alignment would make a linker lay out a file of absurd size. An
// executable one is only read (dump, cmp), and nvlink writes what a shared
// variable's symbol value asks for (up to 2 GiB), so it takes any.
const MaxAlign = 1 << 16

// Error is a decoding failure: what is wrong, in nvlink's terms where it has
// them. The caller prefixes the file name.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) error { return &Error{fmt.Sprintf(format, a...)} }

var le = binary.LittleEndian

// Header is the ELF64 file header.
type Header struct {
	Ident     [16]byte
	Type      uint16
	Machine   uint16
	Version   uint32
	Entry     uint64
	Phoff     uint64
	Shoff     uint64
	Flags     uint32
	Ehsize    uint16
	Phentsize uint16
	Phnum     uint16
	Shentsize uint16
	Shnum     uint16
	Shstrndx  uint16
}

// OSABI is EI_OSABI; ABIVersion is EI_ABIVERSION.
func (h *Header) OSABI() byte      { return h.Ident[7] }
func (h *Header) ABIVersion() byte { return h.Ident[8] }

// SM is the SASS target of a cubin's e_flags (legacy ABI 7 layout: SM in the
// low byte; newer ABIs keep it at bits 8..15).
func (h *Header) SM() int {
	if h.Ident[7] == 0x41 {
		return int(h.Flags>>8) & 0xFF
	}
	return int(h.Flags & 0xFF)
}

// SetSM writes sm where SM reads it, leaving the other bits of e_flags (the
// virtual architecture among them) as they are.
func (h *Header) SetSM(sm int) {
	if h.Ident[7] == 0x41 {
		h.Flags = h.Flags&^0xFF00 | uint32(sm&0xFF)<<8
		return
	}
	h.Flags = h.Flags&^0xFF | uint32(sm&0xFF)
}

// SMCompatible reports whether code for SM input links into a link for SM
// target, as nvlink 11.8 takes it: the same SM, or one of the same major
// version with a lower minor, where neither is one of the integrated
// (Tegra) GPUs' SMs, whose code runs on no other (-arch=sm_86 takes sm_80
// cubins, sm_89 sm_80 and sm_86, sm_75 sm_70, sm_61 sm_60, sm_52 sm_50;
// sm_87, sm_72, sm_62 and sm_53 take none, nor are they taken; nothing
// crosses a major version).
func SMCompatible(input, target int) bool {
	if input == target {
		return true
	}
	tegra := func(sm int) bool { return sm == 53 || sm == 62 || sm == 72 || sm == 87 }
	return input/10 == target/10 && input < target && !tegra(input) && !tegra(target)
}

// Section is a decoded section header plus its contents: what a link
// uses of it. (A link holds one per input section, 40 bytes: fields are
// ordered to leave no padding; the name is not kept (File.SecName decodes
// it from NameOff); the contents are a pointer with Size as their length,
// not a slice header, since a section with contents has exactly Size bytes
// of them; sh_addr, sh_offset and sh_link are left to Shdr (nothing links
// by them: contents are Data, and the link reads no section's sh_link
// but the symbol table's, which parsing follows); the flags keep their
// low 32 bits, where every SHF_ flag the ELF specification defines lies
// (SHF_MASKOS and SHF_MASKPROC included): File.SecFlags gives all 64,
// which only a file ParseCompact declines can have; and the alignment and
// entry size, 64-bit in the file, are kept in 32 bits: a cubin with wider
// ones is refused, another ELF's saturate.)
type Section struct {
	data      *byte // the first of Size bytes of contents; nil: none
	Size      uint64
	Flags     uint32
	Type      uint32
	NameOff   uint32
	Info      uint32
	Addralign uint32
	Entsize   uint32
}

// Data returns the section's contents: Size bytes that alias the file or
// the memory File.Raw keeps (nil for NOBITS and empty sections, and for
// sections whose contents were dropped).
func (s *Section) Data() []byte {
	if s.data == nil {
		return nil
	}
	return unsafe.Slice(s.data, s.Size)
}

// SetData makes b the section's contents: b holds Size bytes (a copy of
// them, or the memory they move to), or is empty to drop them.
func (s *Section) SetData(b []byte) {
	if len(b) == 0 {
		s.data = nil
		return
	}
	if uint64(len(b)) != s.Size {
		panic("elf: SetData with contents of another size than the section's")
	}
	s.data = unsafe.SliceData(b)
}

// Shdr is a section header with every field of the file's (Elf64_Shdr),
// alignment and entry size as Section keeps them: what PutSectionHeader
// writes and File.Shdr reads back.
type Shdr struct {
	Flags     uint64
	Addr      uint64
	Offset    uint64
	Size      uint64
	NameOff   uint32
	Type      uint32
	Link      uint32
	Info      uint32
	Addralign uint32
	Entsize   uint32
}

// Symbol is a decoded ELF64 symbol; Shndx is the resolved section index
// (from .symtab_shndx when st_shndx is SHN_XINDEX), RawShndx the st_shndx
// field. (A link holds one per input symbol until finalize: 40 bytes, the
// name decoded, its st_name offset not kept.)
type Symbol struct {
	Name     string
	Value    uint64
	Size     uint64
	Shndx    uint32
	Info     uint8
	Other    uint8
	RawShndx uint16
}

// Bind is ST_BIND; Type is ST_TYPE.
func (s *Symbol) Bind() uint8 { return s.Info >> 4 }
func (s *Symbol) Type() uint8 { return s.Info & 0xF }

// Prog is an ELF64 program header.
type Prog struct {
	Type   uint32
	Flags  uint32
	Off    uint64
	Vaddr  uint64
	Paddr  uint64
	Filesz uint64
	Memsz  uint64
	Align  uint64
}

// File is a decoded ELF64 file. Section data and names alias the input.
type File struct {
	Raw      []byte
	Header   Header
	Sections []Section
	Progs    []Prog
	Symbols  []Symbol // index 0 is the null symbol; empty when there is no .symtab
	// SymtabIndex is the section index of .symtab, 0 if none;
	// StrtabIndex, of the string table it links. (32 bits: a link holds a
	// File per input, and int32 indices spare it a size class.)
	SymtabIndex int32
	StrtabIndex int32
	// shstrndx is the section index of the section name table SecName
	// reads (checked to be a string table when parsed).
	shstrndx int32
	// compact: Raw holds only the kept sections' contents (ParseCompact),
	// not the section header table Shdr reads.
	compact bool
}

// SecName returns section i's name, decoded from the section name table
// (every name was checked when f was parsed): "" for section 0, for an i
// f has no section for, and in a File that was not parsed.
func (f *File) SecName(i int) string {
	if i <= 0 || i >= len(f.Sections) || f.shstrndx <= 0 || int(f.shstrndx) >= len(f.Sections) {
		return ""
	}
	n, _ := CString(f.Sections[f.shstrndx].Data(), f.Sections[i].NameOff)
	return n
}

// SecNameTable is the section name table SecName decodes from (nil in a
// File without one): SecName(i), when not "", is the string of that
// length at Sections[i].NameOff there.
func (f *File) SecNameTable() []byte {
	if f.shstrndx <= 0 || int(f.shstrndx) >= len(f.Sections) {
		return nil
	}
	return f.Sections[f.shstrndx].Data()
}

// SecNameIs reports whether section i is named name, as SecName(i) ==
// name, without scanning the name for its end.
func (f *File) SecNameIs(i int, name string) bool {
	if i <= 0 || i >= len(f.Sections) || f.shstrndx <= 0 || int(f.shstrndx) >= len(f.Sections) || name == "" {
		return f.SecName(i) == name
	}
	tab, off := f.Sections[f.shstrndx].Data(), uint64(f.Sections[i].NameOff)
	return off < uint64(len(tab)) && uint64(len(tab))-off > uint64(len(name)) &&
		tab[off+uint64(len(name))] == 0 && string(tab[off:off+uint64(len(name))]) == name
}

// SecNameHasPrefix reports whether section i's name begins with prefix,
// as strings.HasPrefix(SecName(i), prefix), without scanning the name for
// its end. prefix holds no NUL.
func (f *File) SecNameHasPrefix(i int, prefix string) bool {
	if i <= 0 || i >= len(f.Sections) || f.shstrndx <= 0 || int(f.shstrndx) >= len(f.Sections) || prefix == "" {
		n := f.SecName(i)
		return len(n) >= len(prefix) && n[:len(prefix)] == prefix
	}
	tab, off := f.Sections[f.shstrndx].Data(), uint64(f.Sections[i].NameOff)
	return off < uint64(len(tab)) && uint64(len(tab))-off > uint64(len(prefix)) &&
		string(tab[off:off+uint64(len(prefix))]) == prefix
}

// Shdr returns section i's header as the file's section header table
// holds it, with ok false when f does not hold that table (ParseCompact
// left it out, a File not parsed has none) or has no section i.
func (f *File) Shdr(i int) (h Shdr, ok bool) {
	at := f.Header.Shoff + uint64(i)*ShdrSize
	if f.compact || i < 0 || i >= len(f.Sections) || at > uint64(len(f.Raw)) || uint64(len(f.Raw))-at < ShdrSize {
		return Shdr{}, false
	}
	p := f.Raw[at:]
	s := &f.Sections[i]
	return Shdr{NameOff: s.NameOff, Type: s.Type, Flags: le.Uint64(p[8:]), Addr: le.Uint64(p[16:]), Offset: le.Uint64(p[24:]),
		Size: s.Size, Link: le.Uint32(p[40:]), Info: s.Info, Addralign: s.Addralign, Entsize: s.Entsize}, true
}

// SecFlags returns section i's sh_flags, all 64 bits: from the section
// header table when f holds it, else Section.Flags (ParseCompact keeps no
// file whose flags have higher bits; a File built by hand has the ones its
// Sections give).
func (f *File) SecFlags(i int) uint64 {
	if h, ok := f.Shdr(i); ok {
		return h.Flags
	}
	return uint64(f.Sections[i].Flags)
}

// IsELF reports whether b starts with the ELF magic.
func IsELF(b []byte) bool {
	return len(b) >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F'
}

// fits reports whether count entries of entsize bytes fit in avail bytes:
// it bounds counts so that absurd headers cannot make us allocate far more
// than the file could describe.
func fits(count, entsize, avail uint64) bool {
	return entsize == 0 || count <= avail/entsize
}

// Parse decodes an ELF64 little-endian file. It checks every header field it
// uses against the size of b.
func Parse(b []byte) (*File, error) { return ParseInto(b, nil) }

// ParseInto is Parse with the section and symbol tables placed in memory
// from alloc (see Alloc). Their strings and slices point into b only,
// which File.Raw keeps alive.
func ParseInto(b []byte, alloc Alloc) (*File, error) {
	return parseWith(nil, b, alloc, alloc, nil)
}

// ErrNotCompact is ParseCompact declining a file whose sections are not
// laid out in index order without overlaps, or whose flags need 64 bits.
// (No errorf: fmt's first use at package initialization cost every run
// its pools and pages.)
var ErrNotCompact error = &Error{"sections out of order, overlapping or with 64-bit flags"}

// ParseCompact is ParseInto for a file b that is only read while parsing:
// the contents of the sections for which drop (nil: none) reports false
// are copied, each 8-byte aligned, into one buffer from keep, which
// becomes File.Raw and which those sections' Data and every name point
// into (but see names below); the section header table and the padding
// between sections are left out. The sections drop reports keep Data
// pointing into b, for the caller to decode and then clear before b is
// used again. A file whose
// sections are not laid out in index order without overlaps (none that
// ptxas or nvlink write), or one with a section whose flags have bits
// above the low 32 (which File.SecFlags reads from the section header
// table), gets ErrNotCompact before anything is kept;
// callers parse it whole. drop is asked before names are checked: it sees
// each section's header and contents (SecName gives "" then).
//
// zeros, when not nil, may stand in for the copy of a section to keep whose
// contents are all zeros and that no relocation section of the file
// applies to (so that nothing patches it): it returns n zero bytes that
// are never written, shared by every such section (as internal/hugemem's
// Arena.Zeros hands out),
// or nil for a copy as usual. (ptxas's .nv.constant0.<k> sections are all
// zeros: about an eighth of the bytes a generated link keeps.)
//
// alloc places the section table and symAlloc the symbol table (nil:
// alloc), as ParseInto's alloc does: a caller done with the symbols before
// the sections may free them apart. names, when not nil, places the
// string tables (SHT_STRTAB: every name points into them) apart from
// keep, for a caller done with the names before the contents; it returns
// zeroed bytes that stay valid while the names are read, or nil, and then
// they go with the rest, into keep's buffer.
func ParseCompact(b []byte, drop func(*Section) bool, keep, names func(int) []byte, alloc, symAlloc Alloc, zeros func(int) []byte) (*File, error) {
	return ParseCompactTo(nil, b, drop, keep, names, alloc, symAlloc, zeros)
}

// ParseCompactTo is ParseCompact decoding into the record into (nil: a
// new one), which it may overwrite whatever the outcome: a caller that
// keeps many files may place their records together (merge's read does,
// for the collector's sake).
func ParseCompactTo(into *File, b []byte, drop func(*Section) bool, keep, names func(int) []byte, alloc, symAlloc Alloc, zeros func(int) []byte) (*File, error) {
	if symAlloc == nil {
		symAlloc = alloc
	}
	return parseWith(into, b, alloc, symAlloc, func(secs []Section, shtab []byte) ([]byte, error) {
		// Per section: patched (a relocation section applies to it),
		// zeroed (its Data is zeros') and copied (its contents go into
		// keep's or names' buffer: drop is asked once); on the stack for
		// the usual cubin.
		const patched, zeroed, copied = 1, 2, 4
		var small [64]uint8
		flags := small[:0]
		if len(secs) <= len(small) {
			flags = small[:len(secs)]
		} else {
			flags = make([]uint8, len(secs))
		}
		var end, total, strs uint64
		for i := range secs {
			s := &secs[i]
			if (s.Type == SHTRel || s.Type == SHTRela) && s.Info < uint32(len(secs)) {
				flags[s.Info] |= patched
			}
			if le.Uint32(shtab[i*ShdrSize+12:]) != 0 {
				return nil, ErrNotCompact // (flags above the low 32 bits)
			}
			if s.data == nil {
				continue
			}
			off := le.Uint64(shtab[i*ShdrSize+24:])
			if off < end {
				return nil, ErrNotCompact
			}
			end = off + s.Size
		}
		for i := range secs {
			s := &secs[i]
			if s.data == nil || drop != nil && drop(s) {
				continue
			}
			if zeros != nil && flags[i]&patched == 0 && allZero(s.Data()) {
				if z := zeros(int(s.Size)); z != nil {
					s.SetData(z)
					flags[i] |= zeroed
					continue
				}
			}
			flags[i] |= copied
			if names != nil && s.Type == SHTStrtab {
				strs += (s.Size + 7) &^ 7
				continue
			}
			total += (s.Size + 7) &^ 7
		}
		var strBody []byte
		if strs > 0 {
			if strBody = names(int(strs)); strBody == nil {
				total += strs
			}
		}
		body := keep(int(total))
		pos, strPos := 0, 0
		for i := range secs {
			if s := &secs[i]; flags[i]&copied != 0 {
				to, at := body, &pos
				if strBody != nil && s.Type == SHTStrtab {
					to, at = strBody, &strPos
				}
				n := copy(to[*at:], s.Data())
				s.SetData(to[*at : *at+n : *at+n])
				*at += (n + 7) &^ 7
			}
		}
		return body, nil
	})
}

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for len(b) >= 8 {
		if le.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// parseWith is ParseInto with the symbol table from symAlloc, decoding
// into the record into (nil: a new one); place, when not nil, may move
// the sections' contents once their headers are read (before any name is
// decoded from them; shtab is the section header table)
// and returns what becomes File.Raw (see ParseCompact).
func parseWith(into *File, b []byte, alloc, symAlloc Alloc, place func(secs []Section, shtab []byte) ([]byte, error)) (*File, error) {
	f, err := parseHeader(into, b)
	if err != nil {
		return nil, err
	}
	shtab, shnum, shstrndx, err := f.sectionTable()
	if err != nil {
		return nil, err
	}
	f.Sections = SliceOf[Section](int(shnum), alloc)
	for i := uint64(0); i < shnum; i++ {
		if err := f.parseSection(i, shtab[i*ShdrSize:]); err != nil {
			return nil, err
		}
	}
	if place != nil {
		raw, err := place(f.Sections, shtab)
		if err != nil {
			return nil, err
		}
		f.Raw, f.compact = raw, true
	}
	if err := f.nameSections(shnum, shstrndx); err != nil {
		return nil, err
	}
	if err := f.parseProgs(b, alloc); err != nil {
		return nil, err
	}
	if err := f.parseSymbols(shtab, symAlloc); err != nil {
		return nil, err
	}
	return f, nil
}

// parseHeader checks b's identification and decodes its ELF header, into
// the record into (nil: a new one).
func parseHeader(into *File, b []byte) (*File, error) {
	if !IsELF(b) {
		return nil, errorf("not an ELF file")
	}
	if len(b) < EhdrSize {
		return nil, errorf("truncated ELF header")
	}
	if b[4] != 2 {
		return nil, errorf("not a 64-bit ELF file")
	}
	if b[5] != 1 {
		return nil, errorf("not a little-endian ELF file")
	}
	f := into
	if f == nil {
		f = &File{}
	}
	*f = File{Raw: b}
	h := &f.Header
	copy(h.Ident[:], b[:16])
	h.Type = le.Uint16(b[16:])
	h.Machine = le.Uint16(b[18:])
	h.Version = le.Uint32(b[20:])
	h.Entry = le.Uint64(b[24:])
	h.Phoff = le.Uint64(b[32:])
	h.Shoff = le.Uint64(b[40:])
	h.Flags = le.Uint32(b[48:])
	h.Ehsize = le.Uint16(b[52:])
	h.Phentsize = le.Uint16(b[54:])
	h.Phnum = le.Uint16(b[56:])
	h.Shentsize = le.Uint16(b[58:])
	h.Shnum = le.Uint16(b[60:])
	h.Shstrndx = le.Uint16(b[62:])
	return f, nil
}

// sectionTable locates the section header table in f.Raw and returns it
// with the section count and the section name table's index, both read
// from section 0 under extended numbering (shnum 0 when there is no table).
func (f *File) sectionTable() (shtab []byte, shnum uint64, shstrndx uint32, err error) {
	b, h := f.Raw, &f.Header
	size := uint64(len(b))
	shnum = uint64(h.Shnum)
	shstrndx = uint32(h.Shstrndx)
	if h.Shoff == 0 {
		return nil, 0, shstrndx, nil
	}
	if h.Shentsize != ShdrSize {
		return nil, 0, 0, errorf("bad section header size %d", h.Shentsize)
	}
	if h.Shoff > size || size-h.Shoff < ShdrSize {
		return nil, 0, 0, errorf("section header table at 0x%x is outside the file", h.Shoff)
	}
	shtab = b[h.Shoff:]
	// Extended numbering: section 0 holds the real count and strndx.
	if shnum == 0 {
		shnum = le.Uint64(shtab[32:])
	}
	if h.Shstrndx == SHNXindex {
		shstrndx = le.Uint32(shtab[40:])
	}
	if !fits(shnum, ShdrSize, uint64(len(shtab))) {
		return nil, 0, 0, errorf("section header table (%d entries at 0x%x) goes past the end of the file", shnum, h.Shoff)
	}
	return shtab, shnum, shstrndx, nil
}

// parseSection decodes section i's header p into f.Sections[i] and points
// its Data into f.Raw.
func (f *File) parseSection(i uint64, p []byte) error {
	b, h := f.Raw, &f.Header
	size := uint64(len(b))
	s := &f.Sections[i]
	s.NameOff = le.Uint32(p[0:])
	s.Type = le.Uint32(p[4:])
	s.Flags = le.Uint32(p[8:])
	off := le.Uint64(p[24:])
	s.Size = le.Uint64(p[32:])
	s.Info = le.Uint32(p[44:])
	align, entsize := le.Uint64(p[48:]), le.Uint64(p[56:])
	// A cubin's must fit 32 bits; another ELF's (host objects, read
	// only for their device code) saturate.
	if h.Machine == EMCUDA {
		if align > MaxAlign && h.Type == ETRel {
			return errorf("section %d has alignment 0x%x, more than 0x%x", i, align, MaxAlign)
		}
		if entsize > math.MaxUint32 {
			return errorf("section %d has entry size 0x%x, more than 0x%x", i, entsize, uint64(math.MaxUint32))
		}
	}
	s.Addralign, s.Entsize = uint32(min(align, math.MaxUint32)), uint32(min(entsize, math.MaxUint32))
	if h.Machine == EMCUDA && i > 0 && s.Type == SHTNull && s.Size > 0 {
		// An inactive section has no contents; one that claims a size
		// would link as that many bytes of nothing (a fuzzed input of
		// 0x900000000000260; nvlink 11.8 dies of SIGFPE on it).
		return errorf("section %d is SHT_NULL but has size 0x%x", i, s.Size)
	}
	if s.Type != SHTNobits && s.Type != SHTNull && s.Size > 0 && !cudaNoData(s.Type) {
		if off > size || s.Size > size-off {
			return errorf("section %d (offset 0x%x, size 0x%x) goes past the end of the file (0x%x bytes)", i, off, s.Size, size)
		}
		s.data = &b[off]
	}
	return nil
}

// nameSections decodes the sections' names from the section name table
// shstrndx and checks that the sections that apply to another name one of
// the shnum sections.
func (f *File) nameSections(shnum uint64, shstrndx uint32) error {
	if shnum == 0 {
		return nil
	}
	if uint64(shstrndx) >= shnum {
		return errorf("section name string table index %d out of range", shstrndx)
	}
	if f.Sections[shstrndx].Type != SHTStrtab {
		return errorf("section name string table %d is not a string table", shstrndx)
	}
	f.shstrndx = int32(shstrndx)
	strs := f.Sections[shstrndx].Data()
	// (In a table that ends with a NUL, as every one does, each offset
	// inside it names a string: no scan needed.)
	terminated := len(strs) > 0 && strs[len(strs)-1] == 0
	for i := 1; i < len(f.Sections); i++ {
		s := &f.Sections[i]
		if !terminated || uint64(s.NameOff) >= uint64(len(strs)) {
			if _, ok := CString(strs, s.NameOff); !ok {
				return errorf("section %d has a bad name offset 0x%x", i, s.NameOff)
			}
		}
		if t := s.Type; (t == SHTRel || t == SHTRela || t == SHTCudaInfo) && uint64(s.Info) >= shnum {
			return errorf("section %d (%s) applies to section %d of %d", i, f.SecName(i), s.Info, shnum)
		}
	}
	return nil
}

// parseProgs decodes the program headers from b, the file as read (f.Raw
// may have been moved by then), into memory from alloc (nil: make), as
// the section table.
func (f *File) parseProgs(b []byte, alloc Alloc) error {
	h := &f.Header
	size := uint64(len(b))
	if h.Phoff == 0 || h.Phnum == 0 {
		return nil
	}
	if h.Phentsize != PhdrSize {
		return errorf("bad program header size %d", h.Phentsize)
	}
	if h.Phoff > size || !fits(uint64(h.Phnum), PhdrSize, size-h.Phoff) {
		return errorf("program header table goes past the end of the file")
	}
	f.Progs = SliceOf[Prog](int(h.Phnum), alloc)
	for i := range f.Progs {
		p := b[h.Phoff+uint64(i)*PhdrSize:]
		f.Progs[i] = Prog{
			Type: le.Uint32(p[0:]), Flags: le.Uint32(p[4:]), Off: le.Uint64(p[8:]),
			Vaddr: le.Uint64(p[16:]), Paddr: le.Uint64(p[24:]), Filesz: le.Uint64(p[32:]),
			Memsz: le.Uint64(p[40:]), Align: le.Uint64(p[48:]),
		}
	}
	return nil
}

// cudaNoData reports CUDA section types that occupy no file space.
func cudaNoData(t uint32) bool {
	switch t {
	case SHTCudaGlobal, SHTCudaLocal, SHTCudaShared, SHTCudaSharedReserved:
		return true
	}
	return false
}

// IsNobits reports whether a section of this type has no file contents.
func IsNobits(t uint32) bool { return t == SHTNobits || cudaNoData(t) }

func (f *File) parseSymbols(shtab []byte, alloc Alloc) error {
	link := func(i int) uint32 { return le.Uint32(shtab[i*ShdrSize+40:]) }
	var symtab *Section
	for i := range f.Sections {
		if f.Sections[i].Type == SHTSymtab {
			symtab = &f.Sections[i]
			f.SymtabIndex = int32(i)
			break
		}
	}
	if symtab == nil {
		return nil
	}
	if symtab.Entsize != SymSize {
		return errorf("symbol table entry size %d is not %d", symtab.Entsize, SymSize)
	}
	strtab := link(int(f.SymtabIndex))
	if int(strtab) >= len(f.Sections) || f.Sections[strtab].Type != SHTStrtab {
		return errorf("symbol table links to section %d, which is not a string table", strtab)
	}
	f.StrtabIndex = int32(strtab)
	strs := f.Sections[strtab].Data()
	var xindex []byte
	for i := range f.Sections {
		if f.Sections[i].Type == SHTSymtabShndx && int(link(i)) == int(f.SymtabIndex) {
			xindex = f.Sections[i].Data()
		}
	}
	symdata := symtab.Data()
	n := len(symdata) / SymSize
	f.Symbols = SliceOf[Symbol](n, alloc)
	for i := 0; i < n; i++ {
		p := symdata[i*SymSize:]
		s := &f.Symbols[i]
		nameOff := le.Uint32(p[0:])
		s.Info = p[4]
		s.Other = p[5]
		s.RawShndx = le.Uint16(p[6:])
		s.Value = le.Uint64(p[8:])
		s.Size = le.Uint64(p[16:])
		name, ok := CString(strs, nameOff)
		if !ok {
			return errorf("symbol %d has a bad name offset 0x%x", i, nameOff)
		}
		s.Name = name
		s.Shndx = uint32(s.RawShndx)
		if s.RawShndx == SHNXindex {
			if len(xindex) < (i+1)*4 {
				return errorf("symbol %d uses SHN_XINDEX but .symtab_shndx has no entry for it", i)
			}
			s.Shndx = le.Uint32(xindex[i*4:])
		}
		inSection := s.Shndx != SHNUndef && (s.Shndx < SHNLoReserve || s.RawShndx == SHNXindex)
		if inSection && int(s.Shndx) >= len(f.Sections) {
			return errorf("symbol %d (%s) refers to section %d of %d", i, s.Name, s.Shndx, len(f.Sections))
		}
		if f.Header.Machine == EMCUDA && s.RawShndx >= SHNLoReserve && s.RawShndx != SHNAbs && s.RawShndx != SHNCommon && s.RawShndx != SHNXindex {
			return errorf("symbol %d (%s) has the reserved section index 0x%x", i, s.Name, s.RawShndx)
		}
		if f.Header.Machine == EMCUDA && inSection && f.Sections[s.Shndx].Type == SHTNull {
			// An inactive section holds nothing to define a symbol in: such
			// a symbol made an output section of type SHT_NULL with a size
			// (a fuzzed input, which nvlink 11.8 refused for an undefined
			// reference its call graph named).
			return errorf("symbol %d (%s) is defined in section %d, which is SHT_NULL", i, s.Name, s.Shndx)
		}
	}
	return nil
}

// CString returns the NUL-terminated string at off in tab. The string
// aliases tab (no copy): a File's names share the input's memory, which
// must not be modified while they are in use.
func CString(tab []byte, off uint32) (string, bool) {
	if uint64(off) >= uint64(len(tab)) {
		if off == 0 && len(tab) == 0 {
			return "", true
		}
		return "", false
	}
	t := tab[off:]
	i := bytes.IndexByte(t, 0)
	if i < 0 {
		return "", false
	}
	if i == 0 {
		return "", true
	}
	return unsafe.String(&t[0], i), true
}
