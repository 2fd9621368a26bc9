package elf

// Encoders: the writer's half of the package. Each puts one ELF64 record
// into b, which must be at least the record's size; they allocate nothing.

// PutHeader encodes the ELF header.
func PutHeader(b []byte, h *Header) {
	copy(b[:16], h.Ident[:])
	le.PutUint16(b[16:], h.Type)
	le.PutUint16(b[18:], h.Machine)
	le.PutUint32(b[20:], h.Version)
	le.PutUint64(b[24:], h.Entry)
	le.PutUint64(b[32:], h.Phoff)
	le.PutUint64(b[40:], h.Shoff)
	le.PutUint32(b[48:], h.Flags)
	le.PutUint16(b[52:], h.Ehsize)
	le.PutUint16(b[54:], h.Phentsize)
	le.PutUint16(b[56:], h.Phnum)
	le.PutUint16(b[58:], h.Shentsize)
	le.PutUint16(b[60:], h.Shnum)
	le.PutUint16(b[62:], h.Shstrndx)
}

// PutSectionHeader encodes a section header.
func PutSectionHeader(b []byte, s *Shdr) {
	le.PutUint32(b[0:], s.NameOff)
	le.PutUint32(b[4:], s.Type)
	le.PutUint64(b[8:], s.Flags)
	le.PutUint64(b[16:], s.Addr)
	le.PutUint64(b[24:], s.Offset)
	le.PutUint64(b[32:], s.Size)
	le.PutUint32(b[40:], s.Link)
	le.PutUint32(b[44:], s.Info)
	le.PutUint64(b[48:], uint64(s.Addralign))
	le.PutUint64(b[56:], uint64(s.Entsize))
}

// PutProg encodes a program header.
func PutProg(b []byte, p *Prog) {
	le.PutUint32(b[0:], p.Type)
	le.PutUint32(b[4:], p.Flags)
	le.PutUint64(b[8:], p.Off)
	le.PutUint64(b[16:], p.Vaddr)
	le.PutUint64(b[24:], p.Paddr)
	le.PutUint64(b[32:], p.Filesz)
	le.PutUint64(b[40:], p.Memsz)
	le.PutUint64(b[48:], p.Align)
}

// PutSymbol encodes a symbol named at nameOff; st_shndx is s.RawShndx.
func PutSymbol(b []byte, s *Symbol, nameOff uint32) {
	le.PutUint32(b[0:], nameOff)
	b[4] = s.Info
	b[5] = s.Other
	le.PutUint16(b[6:], s.RawShndx)
	le.PutUint64(b[8:], s.Value)
	le.PutUint64(b[16:], s.Size)
}

// PutRela encodes a RELA entry.
func PutRela(b []byte, r *Rela) {
	le.PutUint64(b[0:], r.Offset)
	le.PutUint64(b[8:], uint64(r.Sym)<<32|uint64(r.Type))
	le.PutUint64(b[16:], uint64(r.Addend))
}

// PutRel encodes a REL entry (no addend: it lives in the relocated field).
func PutRel(b []byte, r *Rela) {
	le.PutUint64(b[0:], r.Offset)
	le.PutUint64(b[8:], uint64(r.Sym)<<32|uint64(r.Type))
}
