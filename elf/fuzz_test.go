package elf

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// seedCubins adds every cubin of the bundled corpus to the fuzz corpus.
func seedCubins(f *testing.F, add func(b []byte)) {
	paths, _ := filepath.Glob("../testdata/corpus/cuda11.8-sm_90/*/*.cubin")
	if len(paths) == 0 {
		f.Fatal("no corpus cubins")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
}

// FuzzParse checks that Parse never panics and that whatever it accepts is
// consistent: ParseInto and ParseSplit decode the same, section data lies
// inside the file, symbols name existing
// sections, and the relocation and .nv.info decoders accept or reject the
// accepted sections without panicking.
func FuzzParse(f *testing.F) {
	seedCubins(f, func(b []byte) { f.Add(b) })
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := Parse(b)
		// The tables placed by an allocator (as in an off-heap arena)
		// decode the same.
		alloc := func(n int) []byte { return make([]byte, n) }
		af, aerr := ParseInto(b, alloc)
		if (err == nil) != (aerr == nil) || err == nil && (!reflect.DeepEqual(ef.Sections, af.Sections) || !reflect.DeepEqual(ef.Symbols, af.Symbols)) {
			t.Fatalf("ParseInto with an allocator differs from Parse (errors %v, %v)", err, aerr)
		}
		// A file cut before its section header table parses, if at all,
		// to the same tables (the bytes of the table are clobbered after
		// parsing: nothing may alias them).
		// A file parsed compact decodes to the same tables, and what it
		// keeps does not depend on b afterwards.
		if cf, cerr := parseCompactClobbered(b, alloc); cerr == nil {
			if err != nil || !sameTables(ef, cf) {
				t.Fatalf("ParseCompact differs from Parse (error %v)", err)
			}
		} else if cerr != ErrNotCompact && err == nil {
			t.Fatalf("ParseCompact failed (%v) where Parse did not", cerr)
		}
		if shoff, ok := TableAtEnd(b); ok {
			tab := bytes.Clone(b[shoff:])
			sf, serr := ParseSplit(bytes.Clone(b[:shoff]), tab, alloc)
			if serr == nil {
				clear(tab)
				if err != nil || !reflect.DeepEqual(ef.Sections, sf.Sections) || !reflect.DeepEqual(ef.Symbols, sf.Symbols) || ef.Header != sf.Header {
					t.Fatalf("ParseSplit differs from Parse (error %v)", err)
				}
			}
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is a %T, not an *Error", err, err)
			}
			return
		}
		for i := range ef.Sections {
			s := &ef.Sections[i]
			if s.Data != nil && (s.Offset+uint64(len(s.Data)) > uint64(len(b)) || !bytes.Equal(s.Data, b[s.Offset:s.Offset+s.Size])) {
				t.Fatalf("section %d data is not the file bytes at 0x%x+0x%x", i, s.Offset, s.Size)
			}
			switch {
			case s.Type == SHTRel || s.Type == SHTRela:
				rs, _ := Relocs(s, len(ef.Symbols))
				if ra, _ := RelocsInto(s, len(ef.Symbols), alloc); !reflect.DeepEqual(rs, ra) {
					t.Fatalf("RelocsInto differs from Relocs")
				}
				for _, r := range rs {
					if int(r.Sym) >= len(ef.Symbols) {
						t.Fatalf("relocation symbol %d of %d accepted", r.Sym, len(ef.Symbols))
					}
				}
			case s.Type == SHTCudaInfo:
				as, err := ParseNvInfo(s.Data)
				if aa, aerr := ParseNvInfoInto(s.Data, alloc); (err == nil) != (aerr == nil) || !reflect.DeepEqual(as, aa) && len(as)+len(aa) > 0 {
					t.Fatalf("ParseNvInfoInto differs from ParseNvInfo")
				}
			}
		}
		for i, s := range ef.Symbols {
			if s.Shndx != SHNUndef && s.Shndx < SHNLoReserve && int(s.Shndx) >= len(ef.Sections) {
				t.Fatalf("symbol %d names section %d of %d", i, s.Shndx, len(ef.Sections))
			}
		}
	})
}

// FuzzNvInfo checks that ParseNvInfo never panics and that every record
// list it accepts encodes back to exactly the input.
func FuzzNvInfo(f *testing.F) {
	seedCubins(f, func(b []byte) {
		ef, err := Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range ef.Sections {
			if s.Type == SHTCudaInfo {
				f.Add(s.Data)
			}
		}
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		attrs, err := ParseNvInfo(b)
		if err != nil {
			return
		}
		if got := AppendNvInfo(nil, attrs); !bytes.Equal(got, b) {
			t.Fatalf("round trip changed %x into %x", b, got)
		}
	})
}

// FuzzRelocs checks that Relocs never panics, rejects out-of-range symbol
// indices, and decodes every entry of an accepted section.
func FuzzRelocs(f *testing.F) {
	seedCubins(f, func(b []byte) {
		ef, err := Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range ef.Sections {
			if s.Type == SHTRela || s.Type == SHTRel {
				f.Add(s.Data, s.Type == SHTRela, len(ef.Symbols))
			}
		}
	})
	f.Fuzz(func(t *testing.T, data []byte, rela bool, nsyms int) {
		s := &Section{Name: ".rel.fuzz", Type: SHTRel, Data: data}
		ent := RelSize
		if rela {
			s.Type, ent = SHTRela, RelaSize
		}
		rs, err := Relocs(s, nsyms)
		if err != nil {
			return
		}
		if len(data)%ent != 0 || len(rs) != len(data)/ent {
			t.Fatalf("%d bytes of %d-byte entries decoded as %d relocations", len(data), ent, len(rs))
		}
		for _, r := range rs {
			if int(r.Sym) >= nsyms {
				t.Fatalf("symbol %d of %d accepted", r.Sym, nsyms)
			}
		}
	})
}

// TestParseSplitCorpus checks that every relocatable cubin of the corpus
// ends with its section header table and parses cut before it to the same
// tables, and that a table that does not end the file is refused.
func TestParseSplitCorpus(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/corpus/cuda11.8-sm_90/*/*.cubin")
	n := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ef, err := Parse(b)
		if err != nil || ef.Header.Type != ETRel {
			continue
		}
		n++
		shoff, ok := TableAtEnd(b)
		if !ok || uint64(shoff) != ef.Header.Shoff {
			t.Fatalf("%s: TableAtEnd = %d, %v; e_shoff 0x%x", p, shoff, ok, ef.Header.Shoff)
		}
		sf, err := ParseSplit(b[:shoff:shoff], bytes.Clone(b[shoff:]), nil)
		if err != nil || !reflect.DeepEqual(ef.Sections, sf.Sections) || !reflect.DeepEqual(ef.Symbols, sf.Symbols) {
			t.Fatalf("%s: ParseSplit differs from Parse (%v)", p, err)
		}
		if cf, err := parseCompactClobbered(b, nil); err != nil || !sameTables(ef, cf) || len(cf.Raw) >= shoff {
			t.Fatalf("%s: ParseCompact differs from Parse (%v) or keeps as much as the cut file", p, err)
		}
		if _, ok := TableAtEnd(append(bytes.Clone(b), 0)); ok {
			t.Errorf("%s: a byte after the table was accepted", p)
		}
		if _, err := ParseSplit(b[:shoff-8], b[shoff:], nil); err == nil {
			t.Errorf("%s: a body shorter than e_shoff was accepted", p)
		}
	}
	if n == 0 {
		t.Fatal("no relocatable cubins in the corpus")
	}
}

// TestWideFieldsRefused checks that a cubin section whose entry size or
// alignment does not fit the 32 bits Section keeps is refused, not cut,
// and that another ELF's (a host object's) saturate.
func TestWideFieldsRefused(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/corpus/cuda11.8-sm_90/*/*.cubin")
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(b)
	if err != nil || len(f.Sections) < 2 {
		t.Fatalf("%s: %v", paths[0], err)
	}
	for _, c := range []struct {
		field int
		want  string
	}{{56, "entry size 0x100000000"}, {48, "alignment 0x100000001"}} {
		m := bytes.Clone(b)
		p := m[f.Header.Shoff+ShdrSize+uint64(c.field):]
		le.PutUint64(p, le.Uint64(p)+1<<32)
		if _, err := Parse(m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("field at %d: %v, want an error naming %q", c.field, err, c.want)
		}
	}
	host, err := os.ReadFile("../testdata/corpus/cuda11.8-sm_90/archive/main.o")
	if err != nil {
		t.Fatal(err)
	}
	hf, err := Parse(host)
	if err != nil || hf.Header.Machine == EMCUDA || len(hf.Sections) < 2 {
		t.Fatalf("main.o: %v", err)
	}
	for _, field := range []int{48, 56} {
		m := bytes.Clone(host)
		le.PutUint64(m[hf.Header.Shoff+ShdrSize+uint64(field):], 1<<40)
		g, err := Parse(m)
		if err != nil || g.Sections[1].Addralign != hf.Sections[1].Addralign && g.Sections[1].Addralign != 1<<32-1 ||
			g.Sections[1].Entsize != hf.Sections[1].Entsize && g.Sections[1].Entsize != 1<<32-1 {
			t.Errorf("host object, field at %d: %v, want the value saturated", field, err)
		}
	}
}

// droppedInTest is the drop predicate of the ParseCompact tests: what a
// link decodes and does not keep.
func droppedInTest(s *Section) bool {
	return s.Type == SHTSymtab || s.Type == SHTSymtabShndx || s.Type == SHTRela || s.Type == SHTRel
}

// parseCompactClobbered parses a copy of b compact, then clobbers the copy
// and clears the dropped sections' Data, as a caller reusing its buffer
// does.
func parseCompactClobbered(b []byte, alloc func(int) []byte) (*File, error) {
	tmp := bytes.Clone(b)
	f, err := ParseCompact(tmp, droppedInTest, func(n int) []byte { return make([]byte, n) }, alloc)
	for i := range tmp {
		tmp[i] = 0xA5
	}
	if err == nil {
		for i := range f.Sections {
			if droppedInTest(&f.Sections[i]) {
				f.Sections[i].Data = nil
			}
		}
	}
	return f, err
}

// sameTables reports whether c (parsed compact, dropped sections cleared)
// decodes as f: same headers, names, symbols, and contents of the kept
// sections.
func sameTables(f, c *File) bool {
	if f.Header != c.Header || len(f.Sections) != len(c.Sections) || !reflect.DeepEqual(f.Symbols, c.Symbols) ||
		f.SymtabIndex != c.SymtabIndex || f.StrtabIndex != c.StrtabIndex {
		return false
	}
	for i := range f.Sections {
		a, b := f.Sections[i], c.Sections[i]
		if droppedInTest(&a) {
			a.Data = nil
		}
		if !reflect.DeepEqual(a, b) {
			return false
		}
	}
	return true
}
