package elf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const corpusDir = "../testdata/corpus/cuda11.8-sm_90"

// corpusCubins returns every cubin of the corpus: inputs and nvlink outputs.
func corpusCubins(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpusDir, "*", "*.cubin"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus cubins under %s (%v)", corpusDir, err)
	}
	return paths
}

// parseFile is readAndParse's File.
func parseFile(t testing.TB, path string) *File {
	t.Helper()
	_, f := readAndParse(t, path)
	return f
}

// readAndParse reads and parses the file at path, failing the test if
// either fails; the File aliases the bytes returned.
func readAndParse(t testing.TB, path string) ([]byte, *File) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b, f
}

func dumpString(t testing.TB, f *File, opt DumpOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if err := DumpWith(&buf, f, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestDumpCorpus(t *testing.T) {
	for _, path := range corpusCubins(t) {
		f := parseFile(t, path)
		out := dumpString(t, f, DumpOptions{})
		if again := dumpString(t, parseFile(t, path), DumpOptions{}); again != out {
			t.Errorf("%s: dump is not deterministic", path)
		}
		for i := range f.Sections {
			if !strings.Contains(out, "] "+f.SecName(i)+":") && f.Sections[i].Type != SHTNull && f.Sections[i].Type != SHTSymtab {
				t.Errorf("%s: dump has no contents entry for section %d %q", path, i, f.SecName(i))
			}
		}
		if strings.Contains(out, "cannot decode") {
			t.Errorf("%s: dump failed to decode a section:\n%s", path, out)
		}
		for _, n := range []string{"EIATTR_0x", "R_CUDA_0x", "LOPROC+"} {
			if strings.Contains(out, n) {
				t.Errorf("%s: dump prints an unnamed number %s...", path, n)
			}
		}
		hex := dumpString(t, f, DumpOptions{Hex: true})
		if len(hex) <= len(out) {
			t.Errorf("%s: -hex dump is not longer than the plain one", path)
		}
	}
}

// TestDumpWriteError checks that a failing writer's error comes back.
func TestDumpWriteError(t *testing.T) {
	f := parseFile(t, corpusCubins(t)[0])
	if err := Dump(failWriter{}, f); err == nil {
		t.Fatal("Dump to a failing writer returned nil")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestSymbolRefsCorpus checks that the symbol indices nv.info records carry
// are valid symbols of the right kind in every corpus cubin.
func TestSymbolRefsCorpus(t *testing.T) {
	for _, path := range corpusCubins(t) {
		f := parseFile(t, path)
		for i := range f.Sections {
			s, name := &f.Sections[i], f.SecName(i)
			if s.Type != SHTCudaInfo {
				continue
			}
			attrs, err := ParseNvInfo(s.Data())
			if err != nil {
				t.Fatalf("%s: %s: %v", path, name, err)
			}
			for j := range attrs {
				a := &attrs[j]
				for _, off := range a.SymbolRefs() {
					idx := a.U32(off)
					if idx == 0 || int(idx) >= len(f.Symbols) {
						t.Errorf("%s: %s: %s refers to symbol %d of %d", path, name, AttrName(a.Code), idx, len(f.Symbols))
						continue
					}
					want := uint8(STTFunc)
					if a.Code == EIAttrParamCbank {
						want = STTSection
					}
					if got := f.Symbols[idx].Type(); got != want {
						t.Errorf("%s: %s: %s refers to %s, a %s symbol", path, name, AttrName(a.Code), f.SymbolName(idx), SymTypeName(got))
					}
				}
			}
		}
	}
}

// cuobjdumpFacts is what `cuobjdump -elf` says about one cubin.
type cuobjdumpFacts struct {
	sectionTypes map[string]string     // section name -> type name
	attrs        map[string][]string   // nv.info section -> "EIFMT_X EIATTR_Y"
	attrSyms     map[string][][]symRef // nv.info section -> per record, symbols named
	relocs       map[string][]string   // rel section -> "offset symbol type addend"
}

type symRef struct {
	name string
	idx  uint32
}

var (
	cuSectionRe = regexp.MustCompile(`^\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+(\S+)$`)
	cuSymRe     = regexp.MustCompile(`(\S+)\((0x[0-9a-f]+)\)`)
	cuRelocRe   = regexp.MustCompile(`^(0x[0-9a-f]+)\s+(\S+)\s+(R_CUDA_\S+)\s+(0x[0-9a-f]+)$`)
	cuRelSecRe  = regexp.MustCompile(`^\.section (\S+)\t(RELA|REL)$`)
)

func parseCuobjdump(out []byte) *cuobjdumpFacts {
	c := &cuobjdumpFacts{
		sectionTypes: map[string]string{}, attrs: map[string][]string{},
		attrSyms: map[string][][]symRef{}, relocs: map[string][]string{},
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	var inTable bool
	var info, rel, format string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "Sections:":
			inTable = true
			continue
		case line == "":
			inTable, rel = false, ""
			continue
		}
		if inTable {
			if m := cuSectionRe.FindStringSubmatch(line); m != nil {
				c.sectionTypes[m[2]] = m[1]
			}
			continue
		}
		if m := cuRelSecRe.FindStringSubmatch(line); m != nil {
			rel, info = m[1], ""
			continue
		}
		if strings.HasPrefix(line, ".") {
			info, rel = "", ""
			if line == ".nv.info" || strings.HasPrefix(line, ".nv.info.") {
				info = line
			}
			continue
		}
		if rel != "" {
			if m := cuRelocRe.FindStringSubmatch(line); m != nil {
				c.relocs[rel] = append(c.relocs[rel], strings.Join(m[1:], " "))
			}
			continue
		}
		if info == "" {
			continue
		}
		switch field, value, _ := strings.Cut(strings.TrimPrefix(line, "\t"), ":\t"); field {
		case "Attribute":
			c.attrs[info] = append(c.attrs[info], value)
			c.attrSyms[info] = append(c.attrSyms[info], nil)
		case "Format":
			format = value
			n := len(c.attrs[info]) - 1
			c.attrs[info][n] = format + " " + c.attrs[info][n]
		case "Value":
			if !strings.HasPrefix(value, "function: ") && !strings.HasPrefix(value, "externs:") {
				continue
			}
			n := len(c.attrSyms[info]) - 1
			for _, m := range cuSymRe.FindAllStringSubmatch(value, -1) {
				idx, _ := strconv.ParseUint(m[2], 0, 32)
				c.attrSyms[info][n] = append(c.attrSyms[info][n], symRef{m[1], uint32(idx)})
			}
		}
	}
	return c
}

// TestNamesAgainstCuobjdump compares the section-type, EIFMT, EIATTR and
// R_CUDA names and the symbols named in nv.info records and relocations with
// what cuobjdump prints for every corpus cubin.
func TestNamesAgainstCuobjdump(t *testing.T) {
	tool, err := exec.LookPath("cuobjdump")
	if err != nil {
		t.Skip("cuobjdump not installed")
	}
	var n checked
	for _, path := range corpusCubins(t) {
		out, err := exec.Command(tool, "-elf", path).Output()
		if err != nil {
			t.Fatalf("cuobjdump -elf %s: %v", path, err)
		}
		cu := parseCuobjdump(out)
		f := parseFile(t, path)
		for i := range f.Sections {
			s, name := &f.Sections[i], f.SecName(i)
			if i == 0 {
				continue
			}
			if got, want := SectionTypeName(s.Type), cu.sectionTypes[name]; got != want {
				t.Errorf("%s: section %s: type %s, cuobjdump %s", path, name, got, want)
			}
			switch s.Type {
			case SHTCudaInfo:
				checkInfoNames(t, path, f, i, cu, &n)
			case SHTRela, SHTRel:
				checkRelocNames(t, path, f, i, cu, &n)
			}
		}
	}
	t.Logf("compared %d nv.info records, %d symbols named in them, %d relocations", n.attrs, n.syms, n.relocs)
	if n.attrs == 0 || n.syms == 0 || n.relocs == 0 {
		t.Errorf("cross-check compared too little: %+v", n)
	}
}

// checked counts what a cross-check compared, so that it cannot pass
// vacuously.
type checked struct{ attrs, syms, relocs int }

func checkInfoNames(t *testing.T, path string, f *File, i int, cu *cuobjdumpFacts, n *checked) {
	t.Helper()
	s, name := &f.Sections[i], f.SecName(i)
	attrs, err := ParseNvInfo(s.Data())
	if err != nil {
		t.Fatalf("%s: %s: %v", path, name, err)
	}
	want := cu.attrs[name]
	if len(attrs) != len(want) {
		t.Errorf("%s: %s: %d records, cuobjdump %d", path, name, len(attrs), len(want))
		return
	}
	for j := range attrs {
		a := &attrs[j]
		n.attrs++
		if got := FormatName(a.Format) + " " + AttrName(a.Code); got != want[j] {
			t.Errorf("%s: %s record %d: %s, cuobjdump %s", path, name, j, got, want[j])
		}
		refs := a.SymbolRefs()
		for k, ref := range cu.attrSyms[name][j] {
			if k >= len(refs) {
				t.Errorf("%s: %s record %d (%s): cuobjdump names symbol %s, we see no symbol there", path, name, j, want[j], ref.name)
				break
			}
			n.syms++
			idx := a.U32(refs[k])
			if idx != ref.idx || f.SymbolName(idx) != ref.name {
				t.Errorf("%s: %s record %d: symbol %d %s, cuobjdump %d %s", path, name, j, idx, f.SymbolName(idx), ref.idx, ref.name)
			}
		}
	}
}

func checkRelocNames(t *testing.T, path string, f *File, i int, cu *cuobjdumpFacts, n *checked) {
	t.Helper()
	name := f.SecName(i)
	rs, err := Relocs(f, i, len(f.Symbols))
	if err != nil {
		t.Fatalf("%s: %s: %v", path, name, err)
	}
	want := cu.relocs[name]
	if len(rs) != len(want) {
		t.Errorf("%s: %s: %d relocations, cuobjdump %d", path, name, len(rs), len(want))
		return
	}
	for j, r := range rs {
		n.relocs++
		got := "0x" + strconv.FormatUint(r.Offset, 16) + " " + f.SymbolName(r.Sym) + " " +
			RelocTypeName(r.Type) + " 0x" + strconv.FormatUint(uint64(r.Addend), 16)
		if got != want[j] {
			t.Errorf("%s: %s relocation %d: %s, cuobjdump %s", path, name, j, got, want[j])
		}
	}
}

func TestRelocTypeName(t *testing.T) {
	for _, c := range []struct {
		typ  uint32
		want string
	}{
		{0, "R_CUDA_NONE"}, {1, "R_CUDA_32"}, {2, "R_CUDA_64"}, {3, "R_CUDA_G32"},
		{4, "R_CUDA_G64"}, {5, "R_CUDA_ABS32_26"}, {116, "R_CUDA_NONE_LAST"},
		{0x10001, "ATTR:R_CUDA_32"}, {117, "R_CUDA_0x75"}, {0x10041, "R_CUDA_0x10041"},
	} {
		if got := RelocTypeName(c.typ); got != c.want {
			t.Errorf("RelocTypeName(%#x) = %s, want %s", c.typ, got, c.want)
		}
	}
	if len(relocNames) != 117 || len(attrNames) != 97 {
		t.Errorf("tables have %d R_CUDA and %d EIATTR names, want 117 and 97", len(relocNames), len(attrNames))
	}
}

func FuzzDump(f *testing.F) {
	for _, path := range corpusCubins(f) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := Parse(b)
		if err != nil {
			return
		}
		var one, two bytes.Buffer
		if err := DumpWith(&one, ef, DumpOptions{Hex: true}); err != nil {
			t.Fatal(err)
		}
		if err := DumpWith(&two, ef, DumpOptions{Hex: true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(one.Bytes(), two.Bytes()) {
			t.Fatal("dump is not deterministic")
		}
	})
}

// TestCallgraphRecords checks the block each record is yielded in: -1
// before the first marker, then each marker's; markers themselves and a
// trailing partial record are not yielded, and a break stops the walk.
func TestCallgraphRecords(t *testing.T) {
	rec := func(caller uint32, callee int32) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, caller), uint32(callee))
	}
	var b []byte
	for _, r := range [][2]int64{{3, 4}, {0, -1}, {7, 8}, {7, 9}, {0, -2}, {5, 0x10}, {0, -3}, {0, -4}, {2, 6}} {
		b = append(b, rec(uint32(r[0]), int32(r[1]))...)
	}
	b = append(b, 1, 2, 3) // partial
	type got struct {
		block          int32
		caller, callee int64
	}
	var all []got
	for block, e := range CallgraphRecords(b) {
		all = append(all, got{block, int64(e.Caller), int64(e.Callee)})
	}
	want := []got{{-1, 3, 4}, {-1, 7, 8}, {-1, 7, 9}, {-2, 5, 0x10}, {-4, 2, 6}}
	if !slices.Equal(all, want) {
		t.Errorf("records %v, want %v", all, want)
	}
	var offs []int
	for block, off := range CallgraphOffsets(b) {
		if e := CallgraphEntryAt(b, off); e.IsMarker() || block != want[len(offs)].block {
			t.Errorf("offset %d: record %v in block %d", off, e, block)
		}
		offs = append(offs, off)
	}
	if want := []int{0, 16, 24, 40, 64}; !slices.Equal(offs, want) {
		t.Errorf("offsets %v, want %v", offs, want)
	}
	n := 0
	for range CallgraphRecords(b) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("break after 2: walked %d", n)
	}
}
