package elf

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestEncodeRoundTrip re-encodes every header, section header, symbol and
// relocation of a real cubin and requires the original bytes back.
func TestEncodeRoundTrip(t *testing.T) {
	b, f := readAndParse(t, corpusDir+"/xcall/ref.cubin")
	var h [EhdrSize]byte
	PutHeader(h[:], &f.Header)
	if !bytes.Equal(h[:], b[:EhdrSize]) {
		t.Fatal("ELF header differs")
	}
	for i := range f.Sections {
		var s [ShdrSize]byte
		h, ok := f.Shdr(i)
		if !ok {
			t.Fatalf("no header %d", i)
		}
		PutSectionHeader(s[:], &h)
		off := f.Header.Shoff + uint64(i)*ShdrSize
		if !bytes.Equal(s[:], b[off:off+ShdrSize]) {
			t.Fatalf("section header %d differs", i)
		}
	}
	for i := range f.Progs {
		var p [PhdrSize]byte
		PutProg(p[:], &f.Progs[i])
		off := f.Header.Phoff + uint64(i)*PhdrSize
		if !bytes.Equal(p[:], b[off:off+PhdrSize]) {
			t.Fatalf("program header %d differs", i)
		}
	}
	symtab := f.Sections[f.SymtabIndex].Data()
	for i := range f.Symbols {
		var s [SymSize]byte
		PutSymbol(s[:], &f.Symbols[i], le.Uint32(symtab[i*SymSize:]))
		if !bytes.Equal(s[:], symtab[i*SymSize:(i+1)*SymSize]) {
			t.Fatalf("symbol %d differs", i)
		}
	}
	for i := range f.Sections {
		sec := &f.Sections[i]
		if sec.Type != SHTRela {
			continue
		}
		rels, err := Relocs(f, i, len(f.Symbols))
		if err != nil {
			t.Fatal(err)
		}
		for k := range rels {
			var r [RelaSize]byte
			PutRela(r[:], &rels[k])
			if !bytes.Equal(r[:], sec.Data()[k*RelaSize:(k+1)*RelaSize]) {
				t.Fatalf("%s entry %d differs", f.SecName(i), k)
			}
		}
	}
}

// TestParseNullSectionWithSize rejects an inactive (SHT_NULL) section that
// claims a size, accepts one that claims none, and rejects a symbol
// defined in one.
func TestParseNullSectionWithSize(t *testing.T) {
	b, f := readAndParse(t, corpusDir+"/xcall/a.cubin")
	k := -1 // a section no symbol is defined in
	for i, sec := range f.Sections {
		named := false
		for _, sym := range f.Symbols {
			named = named || sym.Shndx == uint32(i)
		}
		if (sec.Type == SHTRela || sec.Type == SHTCudaInfo) && sec.Size > 0 && !named {
			k = i
			break
		}
	}
	if k < 0 {
		t.Fatal("no relocation or .nv.info section without symbols")
	}
	hdr := b[int(f.Header.Shoff)+k*ShdrSize:]
	binary.LittleEndian.PutUint32(hdr[4:], SHTNull)
	if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), "is SHT_NULL but has size") {
		t.Errorf("SHT_NULL section %d of size %#x: err = %v", k, f.Sections[k].Size, err)
	}
	binary.LittleEndian.PutUint64(hdr[32:], 0)
	if _, err := Parse(b); err != nil {
		t.Errorf("SHT_NULL section %d of size 0: %v", k, err)
	}
	// A symbol defined in it is refused (a fuzzed input linked into an
	// output with an SHT_NULL section of size 4).
	for i, sym := range f.Symbols {
		if i > 0 && sym.Shndx != SHNUndef && int(sym.Shndx) < len(f.Sections) && sym.Shndx != uint32(k) {
			hdr := b[int(f.Header.Shoff)+int(sym.Shndx)*ShdrSize:]
			binary.LittleEndian.PutUint32(hdr[4:], SHTNull)
			binary.LittleEndian.PutUint64(hdr[32:], 0)
			if _, err := Parse(b); err == nil || !strings.Contains(err.Error(), "which is SHT_NULL") {
				t.Errorf("symbol %d (%s) in an SHT_NULL section: err = %v", i, sym.Name, err)
			}
			return
		}
	}
	t.Fatal("no defined symbol to test with")
}
