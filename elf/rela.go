package elf

// Relocation sections: their entries decoded (Relocs).

// Rela is one relocation (a REL entry has Addend 0).
type Rela struct {
	Offset uint64
	Sym    uint32
	Type   uint32
	Addend int64
}

// Relocs decodes f's SHT_RELA or SHT_REL section i, checking symbol
// indices against nsyms.
func Relocs(f *File, i int, nsyms int) ([]Rela, error) { return RelocsInto(f, i, nsyms, nil) }

// RelocsInto is Relocs with the entries in memory from alloc (see
// ParseInto).
func RelocsInto(f *File, i int, nsyms int, alloc Alloc) ([]Rela, error) {
	s := &f.Sections[i]
	data := s.Data()
	ent := uint64(RelaSize)
	if s.Type == SHTRel {
		ent = RelSize
	}
	if uint64(len(data))%ent != 0 {
		return nil, errorf("relocation section %s size 0x%x is not a multiple of %d", f.SecName(i), len(data), ent)
	}
	n := uint64(len(data)) / ent
	out := SliceOf[Rela](int(n), alloc)
	for k := uint64(0); k < n; k++ {
		p := data[k*ent:]
		info := le.Uint64(p[8:])
		r := Rela{Offset: le.Uint64(p[0:]), Sym: uint32(info >> 32), Type: uint32(info)}
		if ent == RelaSize {
			r.Addend = int64(le.Uint64(p[16:]))
		}
		if int(r.Sym) >= nsyms {
			return nil, errorf("relocation %d in %s refers to symbol %d of %d", k, f.SecName(i), r.Sym, nsyms)
		}
		out[k] = r
	}
	return out, nil
}
