package elf

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"strings"
)

// DumpOptions controls Dump.
type DumpOptions struct {
	// Hex prints the full contents of sections that are otherwise shown as
	// a size and a SHA-256 digest prefix.
	Hex bool
}

// Dump writes a deterministic, readelf-like text description of a cubin:
// header, section table, program headers, symbols, relocations, decoded
// .nv.info records, callgraph and prototypes, and a digest of every other
// section. It is meant for golden files and diffs; it never fails on a
// section it cannot decode (it says so and prints the bytes), only when w
// does.
func Dump(w io.Writer, f *File) error { return DumpWith(w, f, DumpOptions{}) }

// DumpWith is Dump with options.
func DumpWith(w io.Writer, f *File, opt DumpOptions) error {
	d := &dumper{w: bufio.NewWriter(w), f: f, opt: opt}
	d.header()
	d.sections()
	d.progs()
	d.symbols()
	for i := range f.Sections {
		d.contents(i, &f.Sections[i])
	}
	return d.w.Flush()
}

type dumper struct {
	w   *bufio.Writer
	f   *File
	opt DumpOptions
}

func (d *dumper) printf(format string, a ...any) { fmt.Fprintf(d.w, format, a...) }

func (d *dumper) header() {
	h := &d.f.Header
	d.printf("ELF header:\n")
	d.printf("  ident       % x\n", h.Ident[:])
	d.printf("  type        %s\n", fileTypeName(h.Type))
	d.printf("  machine     %d\n", h.Machine)
	d.printf("  osabi       0x%x\n", h.OSABI())
	d.printf("  abiversion  %d\n", h.ABIVersion())
	d.printf("  version     0x%x\n", h.Version)
	d.printf("  flags       0x%x (sm_%d)\n", h.Flags, h.SM())
	d.printf("  entry       0x%x\n", h.Entry)
	d.printf("  ehsize      %d\n", h.Ehsize)
	d.printf("  phoff       0x%x phentsize %d phnum %d\n", h.Phoff, h.Phentsize, h.Phnum)
	d.printf("  shoff       0x%x shentsize %d shnum %d shstrndx %d\n", h.Shoff, h.Shentsize, h.Shnum, h.Shstrndx)
	d.printf("  size        0x%x\n", len(d.f.Raw))
}

func fileTypeName(t uint16) string {
	switch t {
	case ETRel:
		return "REL (1)"
	case ETExec:
		return "EXEC (2)"
	}
	return fmt.Sprintf("0x%x", t)
}

func (d *dumper) sections() {
	d.printf("\nSections (%d):\n", len(d.f.Sections))
	d.printf("  %5s %-20s %10s %10s %10s %10s %5s %5s %5s %4s %s\n",
		"[Nr]", "Type", "Flags", "Addr", "Offset", "Size", "Link", "Info", "Align", "ES", "Name")
	for i := range d.f.Sections {
		s := &d.f.Sections[i]
		h, _ := d.f.Shdr(i)
		d.printf("  [%3d] %-20s %#10x %#10x %#10x %#10x %5d %5d %5d %4d %s\n",
			i, SectionTypeName(s.Type), d.f.SecFlags(i), h.Addr, h.Offset, s.Size,
			h.Link, s.Info, s.Addralign, s.Entsize, d.f.SecName(i))
	}
}

func (d *dumper) progs() {
	d.printf("\nProgram headers (%d):\n", len(d.f.Progs))
	for i := range d.f.Progs {
		p := &d.f.Progs[i]
		d.printf("  [%d] %-5s flags=0x%x off=0x%x vaddr=0x%x paddr=0x%x filesz=0x%x memsz=0x%x align=0x%x\n",
			i, progTypeName(p.Type), p.Flags, p.Off, p.Vaddr, p.Paddr, p.Filesz, p.Memsz, p.Align)
		var names []string
		for _, j := range d.f.SegmentSections(p) {
			names = append(names, d.f.SecName(j))
		}
		d.printf("      sections: %s\n", strings.Join(names, " "))
	}
}

func progTypeName(t uint32) string {
	switch t {
	case 0:
		return "NULL"
	case PTLoad:
		return "LOAD"
	case PTPhdr:
		return "PHDR"
	}
	return fmt.Sprintf("0x%x", t)
}

// SegmentSections returns the indices of the sections whose file contents lie
// inside the file range of p, in section-table order. Empty and NOBITS
// sections occupy no file range and are never listed. (None are for a
// File that does not hold its section header table: see Shdr.)
func (f *File) SegmentSections(p *Prog) []int {
	var out []int
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type == SHTNull || IsNobits(s.Type) || s.Size == 0 {
			continue
		}
		if h, ok := f.Shdr(i); ok && h.Offset >= p.Off && h.Offset-p.Off < p.Filesz && s.Size <= p.Filesz-(h.Offset-p.Off) {
			out = append(out, i)
		}
	}
	return out
}

func (d *dumper) symbols() {
	f := d.f
	d.printf("\nSymbols (%d):\n", len(f.Symbols))
	d.printf("  %6s %18s %10s %-7s %-6s %5s %6s %s\n", "[Nr]", "Value", "Size", "Type", "Bind", "Other", "Shndx", "Name")
	for i := range f.Symbols {
		s := &f.Symbols[i]
		shndx := f.ShndxName(s)
		if s.RawShndx == SHNXindex {
			shndx += "x"
		}
		d.printf("  [%4d] %#18x %#10x %-7s %-6s %#5x %6s %s\n",
			i, s.Value, s.Size, SymTypeName(s.Type()), SymBindName(s.Bind()), s.Other, shndx, f.SymbolName(uint32(i)))
	}
}

// ShndxName renders the section index of s: its number, or UND, ABS or
// COMMON for the reserved values.
func (f *File) ShndxName(s *Symbol) string {
	if s.RawShndx != SHNXindex {
		switch s.RawShndx {
		case SHNUndef:
			return "UND"
		case SHNAbs:
			return "ABS"
		case SHNCommon:
			return "COMMON"
		}
		if s.RawShndx >= SHNLoReserve {
			return fmt.Sprintf("0x%x", s.RawShndx)
		}
	}
	return fmt.Sprint(s.Shndx)
}

// SymTypeName returns the STT_ name of a symbol type without its prefix.
func SymTypeName(t uint8) string {
	switch t {
	case STTNotype:
		return "NOTYPE"
	case STTObject:
		return "OBJECT"
	case STTFunc:
		return "FUNC"
	case STTSection:
		return "SECTION"
	case STTFile:
		return "FILE"
	}
	return fmt.Sprintf("TYPE%d", t)
}

// SymBindName returns the STB_ name of a symbol binding without its prefix.
func SymBindName(b uint8) string {
	switch b {
	case STBLocal:
		return "LOCAL"
	case STBGlobal:
		return "GLOBAL"
	case STBWeak:
		return "WEAK"
	}
	return fmt.Sprintf("BIND%d", b)
}

// symRef renders a symbol index with its name.
func (f *File) symRef(i uint32) string {
	if int(i) >= len(f.Symbols) {
		return fmt.Sprintf("%d(?)", i)
	}
	return fmt.Sprintf("%d(%s)", i, f.SymbolName(i))
}

// StrtabString returns the string at off of the symbol string table, if
// there is one there.
func (f *File) StrtabString(off uint32) (string, bool) {
	if f.StrtabIndex == 0 {
		return "", false
	}
	return CString(f.Sections[f.StrtabIndex].Data(), off)
}

func (d *dumper) contents(index int, s *Section) {
	switch {
	case s.Type == SHTNull || s.Type == SHTSymtab:
		return
	case IsNobits(s.Type):
		d.printf("\nSection [%d] %s: %s, no file data (size 0x%x)\n", index, d.f.SecName(index), SectionTypeName(s.Type), s.Size)
		return
	}
	d.printf("\nSection [%d] %s: %s, size 0x%x", index, d.f.SecName(index), SectionTypeName(s.Type), s.Size)
	switch s.Type {
	case SHTRel, SHTRela:
		d.relocs(index)
	case SHTCudaInfo:
		d.nvinfo(s)
	case SHTCudaCallgraph:
		d.callgraph(s)
	case SHTCudaPrototype:
		d.prototype(s)
	case SHTCudaRelAction:
		d.printf("\n")
		d.hex(s.Data())
	default:
		sum := sha256Sum(s.Data())
		d.printf(", sha256 %s\n", hex.EncodeToString(sum[:8]))
		if d.opt.Hex {
			d.hex(s.Data())
		}
	}
}

func (d *dumper) hex(b []byte) {
	for off := 0; off < len(b); off += 16 {
		end := min(off+16, len(b))
		d.printf("  %06x  % x\n", off, b[off:end])
	}
}

// decodeError notes why a section could not be decoded and shows its bytes.
func (d *dumper) decodeError(s *Section, err error) {
	d.printf("  cannot decode: %v\n", err)
	d.hex(s.Data())
}

func (d *dumper) relocs(index int) {
	f := d.f
	s := &f.Sections[index]
	target := "?"
	if int(s.Info) < len(f.Sections) {
		target = f.SecName(int(s.Info))
	}
	d.printf(", applies to [%d] %s\n", s.Info, target)
	rs, err := Relocs(f, index, len(f.Symbols))
	if err != nil {
		d.decodeError(s, err)
		return
	}
	for _, r := range rs {
		d.printf("  %#10x %-28s %s %+#x\n", r.Offset, RelocTypeName(r.Type), f.symRef(r.Sym), r.Addend)
	}
}

func (d *dumper) nvinfo(s *Section) {
	f := d.f
	attrs, err := ParseNvInfo(s.Data())
	if err != nil {
		d.printf("\n")
		d.decodeError(s, err)
		return
	}
	d.printf(", %d records\n", len(attrs))
	for i := range attrs {
		d.printf("  %s\n", f.FormatAttr(&attrs[i]))
	}
}

// FormatAttr renders one .nv.info record on one line: format, attribute,
// and value or payload, with symbol indices followed by their names.
func (f *File) FormatAttr(a *Attr) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", FormatName(a.Format), AttrName(a.Code))
	if a.Format != EIFmtSVal {
		fmt.Fprintf(&b, " 0x%x", a.Value)
		return b.String()
	}
	fmt.Fprintf(&b, " size=%d", len(a.Payload))
	if len(a.Payload)%4 != 0 {
		fmt.Fprintf(&b, " % x", a.Payload)
		return b.String()
	}
	refs := a.SymbolRefs()
	for off := 0; off < len(a.Payload); off += 4 {
		v := a.U32(off)
		if len(refs) > 0 && refs[0] == off {
			refs = refs[1:]
			fmt.Fprintf(&b, " sym=%s", f.symRef(v))
		} else {
			fmt.Fprintf(&b, " 0x%x", v)
		}
	}
	return b.String()
}

// CallgraphEntry is one 8-byte record of .nv.callgraph. A record with
// Caller 0 and a negative Callee is a marker that starts a block: -1 direct
// calls (caller, callee symbols); -2 address-taken functions and -3
// indirect call sites, each as (symbol, prototype string offset in
// .strtab); in objects of CUDA 13.0, -4 the possible callees of indirect
// call sites (call site, callee symbols). Records before any marker are
// direct calls.
type CallgraphEntry struct {
	Caller uint32
	Callee int32
}

// IsMarker reports whether e starts a block.
func (e CallgraphEntry) IsMarker() bool { return e.Caller == 0 && e.Callee < 0 }

// CallgraphProtoBlock reports whether the records of callgraph block b pair
// a symbol with a prototype string offset (-2, -3); the others pair two
// symbols (-1, -4).
func CallgraphProtoBlock(b int32) bool { return b == -2 || b == -3 }

// CallgraphEntryAt decodes the record at byte offset off of a
// .nv.callgraph section's bytes b (off+8 <= len(b)).
func CallgraphEntryAt(b []byte, off int) CallgraphEntry {
	return CallgraphEntry{Caller: le.Uint32(b[off:]), Callee: int32(le.Uint32(b[off+4:]))}
}

// CallgraphRecords yields the records of a .nv.callgraph section's bytes b
// other than the block markers, each with the block it is in (the
// marker's callee field: -1 call edges, -2 address-taken functions, -3
// indirect calls, -4 possible callees); records before the first marker
// are in block -1. A trailing partial record is ignored.
func CallgraphRecords(b []byte) iter.Seq2[int32, CallgraphEntry] {
	return func(yield func(int32, CallgraphEntry) bool) {
		for block, off := range CallgraphOffsets(b) {
			if !yield(block, CallgraphEntryAt(b, off)) {
				return
			}
		}
	}
}

// CallgraphOffsets is CallgraphRecords yielding each record's byte offset
// in b instead of the record, for a reader that rewrites it in place.
func CallgraphOffsets(b []byte) iter.Seq2[int32, int] {
	return func(yield func(int32, int) bool) {
		block := int32(-1)
		for off := 0; off+8 <= len(b); off += 8 {
			e := CallgraphEntryAt(b, off)
			if e.IsMarker() {
				block = e.Callee
				continue
			}
			if !yield(block, off) {
				return
			}
		}
	}
}

// ParseCallgraph decodes a .nv.callgraph (or, with the same layout of
// 32-bit pairs, .nv.prototype) section.
func ParseCallgraph(b []byte) ([]CallgraphEntry, error) {
	if len(b)%8 != 0 {
		return nil, errorf("callgraph size 0x%x is not a multiple of 8", len(b))
	}
	out := make([]CallgraphEntry, len(b)/8)
	for i := range out {
		out[i] = CallgraphEntryAt(b, 8*i)
	}
	return out, nil
}

func (d *dumper) callgraph(s *Section) {
	f := d.f
	es, err := ParseCallgraph(s.Data())
	if err != nil {
		d.printf("\n")
		d.decodeError(s, err)
		return
	}
	d.printf(", %d records\n", len(es))
	block := int32(-1)
	for _, e := range es {
		switch {
		case e.IsMarker():
			block = e.Callee
			d.printf("  marker %d\n", e.Callee)
		case !CallgraphProtoBlock(block):
			d.printf("  %s -> %s\n", f.symRef(e.Caller), f.symRef(uint32(e.Callee)))
		default:
			d.printf("  %s %s\n", f.symRef(e.Caller), f.protoRef(uint32(e.Callee)))
		}
	}
}

// protoRef renders a prototype string offset with its string.
func (f *File) protoRef(off uint32) string {
	if str, ok := f.StrtabString(off); ok && str != "" {
		return fmt.Sprintf("proto=0x%x(%q)", off, str)
	}
	return fmt.Sprintf("proto=0x%x", off)
}

func (d *dumper) prototype(s *Section) {
	f := d.f
	es, err := ParseCallgraph(s.Data())
	if err != nil {
		d.printf("\n")
		d.decodeError(s, err)
		return
	}
	d.printf(", %d records\n", len(es))
	for _, e := range es {
		d.printf("  %s %s\n", f.symRef(e.Caller), f.protoRef(uint32(e.Callee)))
	}
}
