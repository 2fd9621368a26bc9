package elf

import (
	"bytes"
	"fmt"
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
// consistent: ParseInto and ParseCompact decode the same, section data
// lies inside the file, symbols name existing
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
		// A file parsed compact decodes to the same tables, dropping
		// sections or not, and what it keeps does not depend on b
		// afterwards.
		for _, drop := range []func(*Section) bool{nil, droppedInTest} {
			for _, zeros := range []func(int) []byte{nil, testZeros} {
				if cf, cerr := parseCompactClobbered(b, drop, alloc, zeros); cerr == nil {
					if err != nil || !sameTables(ef, cf, drop) {
						t.Fatalf("ParseCompact (drop %v, zeros %v) differs from Parse (error %v)", drop != nil, zeros != nil, err)
					}
				} else if cerr != ErrNotCompact && err == nil {
					t.Fatalf("ParseCompact failed (%v) where Parse did not", cerr)
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
			h, ok := ef.Shdr(i)
			if !ok || h.Size != s.Size || h.Type != s.Type {
				t.Fatalf("section %d: Shdr gives %+v (%v) for %+v", i, h, ok, s)
			}
			if s.Data() != nil && (h.Offset+uint64(len(s.Data())) > uint64(len(b)) || !bytes.Equal(s.Data(), b[h.Offset:h.Offset+s.Size])) {
				t.Fatalf("section %d data is not the file bytes at 0x%x+0x%x", i, h.Offset, s.Size)
			}
			if n := ef.SecName(i); !ef.SecNameIs(i, n) || ef.SecNameIs(i, n+"x") || n != "" && ef.SecNameIs(i, n[:len(n)-1]) {
				t.Fatalf("section %d: SecNameIs disagrees with SecName %q", i, n)
			}
			for _, p := range []string{"", ".", ".nv.shared.", ef.SecName(i), ef.SecName(i) + "x"} {
				if p != "" && ef.SecNameHasPrefix(i, p[:len(p)-1]) != strings.HasPrefix(ef.SecName(i), p[:len(p)-1]) ||
					ef.SecNameHasPrefix(i, p) != strings.HasPrefix(ef.SecName(i), p) {
					t.Fatalf("section %d: SecNameHasPrefix(%q) disagrees with SecName %q", i, p, ef.SecName(i))
				}
			}
			if n, tab := ef.SecName(i), ef.SecNameTable(); n != "" && (int(s.NameOff)+len(n) > len(tab) || string(tab[s.NameOff:int(s.NameOff)+len(n)]) != n) {
				t.Fatalf("section %d: SecNameTable does not hold SecName %q at %d", i, n, s.NameOff)
			}
			switch {
			case s.Type == SHTRel || s.Type == SHTRela:
				rs, _ := Relocs(ef, i, len(ef.Symbols))
				if ra, _ := RelocsInto(ef, i, len(ef.Symbols), alloc); !reflect.DeepEqual(rs, ra) {
					t.Fatalf("RelocsInto differs from Relocs")
				}
				for _, r := range rs {
					if int(r.Sym) >= len(ef.Symbols) {
						t.Fatalf("relocation symbol %d of %d accepted", r.Sym, len(ef.Symbols))
					}
				}
			case s.Type == SHTCudaInfo:
				as, err := ParseNvInfo(s.Data())
				if aa, aerr := ParseNvInfoInto(s.Data(), alloc); (err == nil) != (aerr == nil) || !reflect.DeepEqual(as, aa) && len(as)+len(aa) > 0 {
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
		for i := range ef.Sections {
			if s := &ef.Sections[i]; s.Type == SHTCudaInfo {
				f.Add(s.Data())
			}
		}
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		attrs, err := ParseNvInfo(b)
		// Decoded again onto a caller's buffer (as merge's Obj.info
		// does), the records are the same, and counted, as many.
		var buf [4]Attr
		again, aerr := AppendNvInfoRecords(buf[:0], b)
		if (err == nil) != (aerr == nil) || err == nil && (len(again) != len(attrs) || NvInfoCount(b) != len(attrs)) {
			t.Fatalf("AppendNvInfoRecords (%d, %v) or NvInfoCount (%d) differ from ParseNvInfo (%d, %v)", len(again), aerr, NvInfoCount(b), len(attrs), err)
		}
		// Walked record by record (as merge's checkInfo does), the
		// records and the error are the same.
		var walkErr error
		n := 0
		for off := 0; off < len(b); n++ {
			a, next, werr := NextNvInfo(b, off)
			if werr != nil {
				walkErr = werr
				break
			}
			if next <= off || err == nil && (n >= len(attrs) || a.Format != attrs[n].Format || a.Code != attrs[n].Code || a.Value != attrs[n].Value || !bytes.Equal(a.Payload, attrs[n].Payload)) {
				t.Fatalf("record %d at 0x%x walked (%+v, next 0x%x) differs", n, off, a, next)
			}
			off = next
		}
		if fmt.Sprint(walkErr) != fmt.Sprint(err) || err == nil && n != len(attrs) {
			t.Fatalf("NextNvInfo walk (%d records, %v) differs from ParseNvInfo (%d, %v)", n, walkErr, len(attrs), err)
		}
		if err != nil {
			return
		}
		for i := range attrs {
			if a, c := attrs[i], again[i]; a.Format != c.Format || a.Code != c.Code || a.Value != c.Value || !bytes.Equal(a.Payload, c.Payload) {
				t.Fatalf("record %d: %+v, decoded again %+v", i, a, c)
			}
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
		for i := range ef.Sections {
			if s := &ef.Sections[i]; s.Type == SHTRela || s.Type == SHTRel {
				f.Add(s.Data(), s.Type == SHTRela, len(ef.Symbols))
			}
		}
	})
	f.Fuzz(func(t *testing.T, data []byte, rela bool, nsyms int) {
		rf := &File{Sections: []Section{{}, {Type: SHTRel, Size: uint64(len(data))}}}
		s := &rf.Sections[1]
		s.SetData(data)
		ent := RelSize
		if rela {
			s.Type, ent = SHTRela, RelaSize
		}
		rs, err := Relocs(rf, 1, nsyms)
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

// TestParseCompactCorpus checks that every relocatable cubin of the corpus
// parses compact to the same tables, keeping less than the file up to its
// section header table, and that a file with overlapping sections is
// declined.
func TestParseCompactCorpus(t *testing.T) {
	n, overlapping := 0, 0
	eachRelocatable(t, "../testdata/corpus/cuda11.8-sm_90/*/*.cubin", func(p string, b []byte, ef *File) {
		n++
		for _, drop := range []func(*Section) bool{nil, droppedInTest} {
			for _, zeros := range []func(int) []byte{nil, testZeros} {
				if cf, err := parseCompactClobbered(b, drop, nil, zeros); err != nil || !sameTables(ef, cf, drop) || uint64(len(cf.Raw)) >= ef.Header.Shoff {
					t.Fatalf("%s: ParseCompact (drop %v, zeros %v) differs from Parse (%v) or keeps the whole file", p, drop != nil, zeros != nil, err)
				}
			}
		}
		// The last section with contents moved onto the first one's.
		m := bytes.Clone(b)
		first, last := -1, -1
		for i := range ef.Sections {
			if len(ef.Sections[i].Data()) > 0 {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		h, _ := ef.Shdr(first)
		le.PutUint64(m[ef.Header.Shoff+uint64(last)*ShdrSize+24:], h.Offset)
		if _, err := Parse(m); err == nil {
			overlapping++
			if _, err := ParseCompact(m, nil, func(n int) []byte { return make([]byte, n) }, nil, nil, nil, nil); err != ErrNotCompact {
				t.Errorf("%s: overlapping sections: ParseCompact gave %v, want ErrNotCompact", p, err)
			}
		}
	})
	if n == 0 || overlapping == 0 {
		t.Fatalf("%d relocatable cubins in the corpus, %d overlapping edits accepted by Parse", n, overlapping)
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

// eachRelocatable calls fn with every relocatable cubin that pattern
// names: its path, bytes and parse (a read error fails the test).
func eachRelocatable(t *testing.T, pattern string, fn func(p string, b []byte, ef *File)) {
	t.Helper()
	paths, _ := filepath.Glob(pattern)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if ef, err := Parse(b); err == nil && ef.Header.Type == ETRel {
			fn(p, b, ef)
		}
	}
}

// testZeros is the zeros of the ParseCompact tests: the start of one
// shared buffer, as hugemem.Arena.Zeros hands out.
func testZeros(n int) []byte {
	if n > len(sharedZeros) {
		return nil
	}
	return sharedZeros[:n:n]
}

var sharedZeros = make([]byte, 64<<10)

// TestParseCompactZeros checks which sections ParseCompact gives the
// shared zeros instead of a copy: every kept section that is all zeros and
// that no relocation section applies to (ptxas's .nv.constant0.<k>), never
// one with a nonzero byte or one a relocation patches, and that the kept
// bytes shrink by theirs.
func TestParseCompactZeros(t *testing.T) {
	shared, patchedZero := 0, 0
	eachRelocatable(t, "../testdata/corpus/cuda11.8-sm_*/*/*.cubin", func(p string, b []byte, ef *File) {
		patched := map[uint32]bool{}
		for _, s := range ef.Sections {
			if s.Type == SHTRel || s.Type == SHTRela {
				patched[s.Info] = true
			}
		}
		plain, err := parseCompactClobbered(b, droppedInTest, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := parseCompactClobbered(b, droppedInTest, nil, testZeros)
		if err != nil {
			t.Fatal(err)
		}
		saved := 0
		for i := range cf.Sections {
			s := &cf.Sections[i]
			zero := len(s.Data()) > 0 && !droppedInTest(s) && allZero(s.Data())
			isShared := len(s.Data()) > 0 && &s.Data()[0] == &sharedZeros[0]
			switch {
			case isShared && (!zero || patched[uint32(i)]):
				t.Errorf("%s: section %d (%s) shares the zeros: all zeros %v, patched %v", p, i, cf.SecName(i), zero, patched[uint32(i)])
			case zero && !patched[uint32(i)] && !isShared:
				t.Errorf("%s: section %d (%s) is all zeros, unpatched, and was copied", p, i, cf.SecName(i))
			case zero && patched[uint32(i)]:
				patchedZero++
			}
			if isShared {
				shared++
				saved += (len(s.Data()) + 7) &^ 7
			}
		}
		if len(cf.Raw) != len(plain.Raw)-saved {
			t.Errorf("%s: kept %d bytes with zeros shared, %d without, %d shared", p, len(cf.Raw), len(plain.Raw), saved)
		}
	})
	if shared == 0 {
		t.Fatal("no section of the corpus shared the zeros")
	}
	t.Logf("%d sections shared the zeros; %d all-zero sections were patched and copied", shared, patchedZero)
	for i, c := range sharedZeros {
		if c != 0 {
			t.Fatalf("the shared zeros were written at %d", i)
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
func parseCompactClobbered(b []byte, drop func(*Section) bool, alloc, zeros func(int) []byte) (*File, error) {
	tmp := bytes.Clone(b)
	f, err := ParseCompact(tmp, drop, func(n int) []byte { return make([]byte, n) }, nil, alloc, nil, zeros)
	for i := range tmp {
		tmp[i] = 0xA5
	}
	if err == nil && drop != nil {
		for i := range f.Sections {
			if drop(&f.Sections[i]) {
				f.Sections[i].SetData(nil)
			}
		}
	}
	return f, err
}

// sameTables reports whether c (parsed compact, the sections drop names
// cleared) decodes as f: same headers, names, symbols, and contents of
// the kept sections.
func sameTables(f, c *File, drop func(*Section) bool) bool {
	if f.Header != c.Header || len(f.Sections) != len(c.Sections) || !reflect.DeepEqual(f.Symbols, c.Symbols) ||
		f.SymtabIndex != c.SymtabIndex || f.StrtabIndex != c.StrtabIndex {
		return false
	}
	for i := range f.Sections {
		a, b := f.Sections[i], c.Sections[i]
		if drop != nil && drop(&a) {
			a.SetData(nil)
		}
		if !bytes.Equal(a.Data(), b.Data()) || (a.Data() == nil) != (b.Data() == nil) || f.SecName(i) != c.SecName(i) {
			return false
		}
		a.data, b.data = nil, nil
		if a != b {
			return false
		}
	}
	return true
}

// FuzzCallgraph checks the two decoders of .nv.callgraph (and
// .nv.prototype) sections against each other: ParseCallgraph refuses only
// a size that is not a multiple of 8, with an *Error, and its records
// encode back to the input; CallgraphRecords yields, of the whole records
// (a trailing partial one ignored), those that are not block markers,
// each with the block of the marker before it (-1 before the first).
func FuzzCallgraph(f *testing.F) {
	seedCubins(f, func(b []byte) {
		ef, err := Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		for i := range ef.Sections {
			if n := ef.SecName(i); n == ".nv.callgraph" || n == ".nv.prototype" {
				f.Add(ef.Sections[i].Data())
			}
		}
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		es, err := ParseCallgraph(b)
		if len(b)%8 != 0 {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("size 0x%x: error %v, want an *Error", len(b), err)
			}
			es, err = ParseCallgraph(b[:len(b)&^7])
		}
		if err != nil {
			t.Fatal(err)
		}
		var enc []byte
		for _, e := range es {
			enc = le.AppendUint32(le.AppendUint32(enc, e.Caller), uint32(e.Callee))
		}
		if !bytes.Equal(enc, b[:len(b)&^7]) {
			t.Fatal("records do not encode back to the section")
		}
		block, k := int32(-1), 0
		for got, r := range CallgraphRecords(b) {
			for k < len(es) && es[k].IsMarker() {
				block = es[k].Callee
				k++
			}
			if k == len(es) || got != block || r != es[k] {
				t.Fatalf("record %d: CallgraphRecords yields %v in block %d", k, r, got)
			}
			k++
		}
		for ; k < len(es); k++ {
			if !es[k].IsMarker() {
				t.Fatalf("record %d (%v) not yielded", k, es[k])
			}
		}
	})
}

// TestParseCompactTo checks that ParseCompactTo decodes into the record
// it is given, whatever that record held, the tables ParseCompact gives.
func TestParseCompactTo(t *testing.T) {
	n := 0
	keep := func(n int) []byte { return make([]byte, n) }
	eachRelocatable(t, "../testdata/corpus/cuda11.8-sm_90/*/*.cubin", func(p string, b []byte, ef *File) {
		n++
		into := &File{Raw: []byte{1}, SymtabIndex: 99, compact: false, Symbols: make([]Symbol, 3)}
		f, err := ParseCompactTo(into, b, nil, keep, nil, nil, nil, nil)
		if err != nil || f != into || !sameTables(ef, f, nil) || !f.compact {
			t.Fatalf("%s: ParseCompactTo gave %p (%v), want the record given (%p) with Parse's tables", p, f, err, into)
		}
	})
	if n == 0 {
		t.Fatal("no relocatable cubin in the corpus")
	}
}
