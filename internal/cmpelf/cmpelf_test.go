package cmpelf

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
)

const corpusDir = "../../testdata/corpus/cuda11.8-sm_90"

var le = binary.LittleEndian

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t testing.TB, b []byte) *elf.File {
	t.Helper()
	f, err := elf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func compare(t testing.TB, ours, ref []byte) *Report {
	t.Helper()
	rep, err := Compare(ours, ref)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// xcall is a small executable cubin with calls, prototypes, relocations and
// nv.info records naming symbols.
func xcall(t testing.TB) []byte { return readFile(t, filepath.Join(corpusDir, "xcall", "ref.cubin")) }

func sectionIndex(t testing.TB, f *elf.File, name string) int {
	t.Helper()
	for i := range f.Sections {
		if f.SecName(i) == name {
			return i
		}
	}
	t.Fatalf("no section %s", name)
	return 0
}

func symbolIndex(t testing.TB, f *elf.File, name string) uint32 {
	t.Helper()
	for i := range f.Symbols {
		if f.Symbols[i].Name == name {
			return uint32(i)
		}
	}
	t.Fatalf("no symbol %s", name)
	return 0
}

func TestCompareSelf(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*.cubin"))
	if len(paths) == 0 {
		t.Fatal("no corpus cubins")
	}
	for _, p := range paths {
		b := readFile(t, p)
		rep := compare(t, b, bytes.Clone(b))
		if !rep.Identical || !rep.Equivalent || len(rep.Diffs) != 0 {
			t.Errorf("%s: Compare(x, x) = %+v", p, rep)
		}
	}
}

// TestCompareRefDC compares nvlink's outputs of the same program linked from
// cubins and from host objects.
func TestCompareRefDC(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(corpusDir, "*"))
	n := 0
	for _, dir := range dirs {
		ref, err1 := os.ReadFile(filepath.Join(dir, "ref.cubin"))
		dc, err2 := os.ReadFile(filepath.Join(dir, "ref_dc.cubin"))
		if err1 != nil || err2 != nil {
			continue
		}
		n++
		rep := compare(t, ref, dc)
		if rep.Identical != bytes.Equal(ref, dc) {
			t.Errorf("%s: Identical = %v, bytes equal = %v", dir, rep.Identical, bytes.Equal(ref, dc))
		}
		t.Logf("%s: identical=%v equivalent=%v %s", filepath.Base(dir), rep.Identical, rep.Equivalent, strings.Join(rep.Diffs, "; "))
	}
	if n == 0 {
		t.Fatal("no program has both ref.cubin and ref_dc.cubin")
	}
}

func TestCompareTextByte(t *testing.T) {
	ref := xcall(t)
	ours := bytes.Clone(ref)
	f := mustParse(t, ours)
	s, _ := f.Shdr(sectionIndex(t, f, ".text._Z7stage_bf"))
	ours[s.Offset+0x13] ^= 0x40
	rep := compare(t, ours, ref)
	if rep.Identical || rep.Equivalent {
		t.Fatalf("flipped .text byte: %+v", rep)
	}
	want := "content: section .text._Z7stage_bf: 1 of 384 bytes differ, first at 0x13"
	if len(rep.Diffs) != 1 || !strings.HasPrefix(rep.Diffs[0], want) {
		t.Errorf("diffs = %q, want one starting %q", rep.Diffs, want)
	}
}

func TestCompareNvInfoValue(t *testing.T) {
	ref := xcall(t)
	ours := bytes.Clone(ref)
	f := mustParse(t, ours)
	s := &f.Sections[sectionIndex(t, f, ".nv.info")]
	attrs, err := elf.ParseNvInfo(s.Data())
	if err != nil {
		t.Fatal(err)
	}
	off := 0
	for _, a := range attrs {
		if a.Code == elf.EIAttrRegcount {
			break
		}
		off += a.Size()
	}
	le.PutUint32(s.Data()[off+8:], 200) // the register count
	rep := compare(t, ours, ref)
	if rep.Equivalent || len(rep.Diffs) != 1 || !strings.Contains(rep.Diffs[0], "section .nv.info: entry") {
		t.Errorf("changed REGCOUNT: %+v", rep)
	}
}

// swapSections exchanges section headers i and j and renumbers every
// reference to them, giving an equivalent file.
func swapSections(t testing.TB, b []byte, i, j int) []byte {
	t.Helper()
	b = bytes.Clone(b)
	f := mustParse(t, b)
	shoff := int(f.Header.Shoff)
	hi, hj := b[shoff+64*i:shoff+64*i+64], b[shoff+64*j:shoff+64*j+64]
	tmp := bytes.Clone(hi)
	copy(hi, hj)
	copy(hj, tmp)
	remap := func(x uint32) uint32 {
		switch int(x) {
		case i:
			return uint32(j)
		case j:
			return uint32(i)
		}
		return x
	}
	for k := range f.Sections {
		s := &f.Sections[k]
		h := b[shoff+64*int(remap(uint32(k))):]
		le.PutUint32(h[40:], remap(le.Uint32(h[40:])))
		if s.Type != elf.SHTSymtab && s.Flags&elf.SHFExecInstr == 0 {
			le.PutUint32(h[44:], remap(s.Info))
		}
	}
	if sh := uint32(f.Header.Shstrndx); remap(sh) != sh {
		le.PutUint16(b[62:], uint16(remap(sh)))
	}
	symtab := f.Sections[f.SymtabIndex].Data()
	for k := range f.Symbols {
		if s := &f.Symbols[k]; s.RawShndx != elf.SHNUndef && s.RawShndx < elf.SHNLoReserve {
			le.PutUint16(symtab[24*k+6:], uint16(remap(uint32(s.RawShndx))))
		}
	}
	return b
}

// swapSymbols exchanges symbols i and j and renumbers every reference to
// them: relocations, nv.info records, callgraph, prototypes and the symbol
// index in code sections' sh_info.
func swapSymbols(t testing.TB, b []byte, i, j uint32) []byte {
	t.Helper()
	b = bytes.Clone(b)
	f := mustParse(t, b)
	remap := func(x uint32) uint32 {
		switch x {
		case i:
			return j
		case j:
			return i
		}
		return x
	}
	symtab := f.Sections[f.SymtabIndex].Data()
	si, sj := symtab[24*i:24*i+24], symtab[24*j:24*j+24]
	tmp := bytes.Clone(si)
	copy(si, sj)
	copy(sj, tmp)
	for k := range f.Sections {
		s := &f.Sections[k]
		switch {
		case s.Flags&elf.SHFExecInstr != 0:
			le.PutUint32(b[int(f.Header.Shoff)+64*k+44:], remap(s.Info))
		case s.Type == elf.SHTRela:
			for off := 0; off+24 <= len(s.Data()); off += 24 {
				le.PutUint32(s.Data()[off+12:], remap(le.Uint32(s.Data()[off+12:])))
			}
		case s.Type == elf.SHTCudaInfo:
			attrs, err := elf.ParseNvInfo(s.Data())
			if err != nil {
				t.Fatal(err)
			}
			off := 0
			for _, a := range attrs {
				for _, r := range a.SymbolRefs() {
					p := s.Data()[off+4+r:]
					le.PutUint32(p, remap(le.Uint32(p)))
				}
				off += a.Size()
			}
		case s.Type == elf.SHTCudaCallgraph || s.Type == elf.SHTCudaPrototype:
			block := int32(-1)
			for off := 0; off+8 <= len(s.Data()); off += 8 {
				caller, callee := le.Uint32(s.Data()[off:]), int32(le.Uint32(s.Data()[off+4:]))
				if caller == 0 && callee < 0 {
					block = callee
					continue
				}
				le.PutUint32(s.Data()[off:], remap(caller))
				if s.Type == elf.SHTCudaCallgraph && block == -1 {
					le.PutUint32(s.Data()[off+4:], remap(uint32(callee)))
				}
			}
		}
	}
	return b
}

func checkLayoutOnly(t *testing.T, what string, rep *Report, wantSubstr string) {
	t.Helper()
	if rep.Identical || !rep.Equivalent {
		t.Fatalf("%s: %+v", what, rep)
	}
	found := false
	for _, d := range rep.Diffs {
		if !strings.HasPrefix(d, "layout: ") {
			t.Errorf("%s: non-layout diff %q", what, d)
		}
		found = found || strings.Contains(d, wantSubstr)
	}
	if !found {
		t.Errorf("%s: no diff mentions %q: %q", what, wantSubstr, rep.Diffs)
	}
}

func TestCompareSwappedSections(t *testing.T) {
	ref := xcall(t)
	f := mustParse(t, ref)
	i, j := sectionIndex(t, f, ".text._Z10xcall_mainPfi"), sectionIndex(t, f, ".text._Z7stage_bf")
	ours := swapSections(t, ref, i, j)
	checkLayoutOnly(t, "swapped .text sections", compare(t, ours, ref), "section order differs")

	// Swapping the string table moves e_shstrndx.
	i, j = sectionIndex(t, f, ".shstrtab"), sectionIndex(t, f, ".strtab")
	checkLayoutOnly(t, "swapped string tables", compare(t, swapSections(t, ref, i, j), ref), "e_shstrndx")

	// Swapping only the headers, without renumbering, is not equivalent.
	bad := bytes.Clone(ref)
	shoff := int(f.Header.Shoff)
	i, j = sectionIndex(t, f, ".text._Z10xcall_mainPfi"), sectionIndex(t, f, ".text._Z7stage_bf")
	tmp := bytes.Clone(bad[shoff+64*i : shoff+64*i+64])
	copy(bad[shoff+64*i:shoff+64*i+64], bad[shoff+64*j:shoff+64*j+64])
	copy(bad[shoff+64*j:shoff+64*j+64], tmp)
	if rep := compare(t, bad, ref); rep.Equivalent {
		t.Errorf("sections swapped without renumbering reported equivalent: %q", rep.Diffs)
	}
}

func TestCompareSwappedSymbols(t *testing.T) {
	for _, prog := range []string{"xcall", "funcptr", "cdp"} {
		ref := readFile(t, filepath.Join(corpusDir, prog, "ref.cubin"))
		f := mustParse(t, ref)
		// The last two symbols are globals in every corpus output.
		n := uint32(len(f.Symbols))
		ours := swapSymbols(t, ref, n-2, n-1)
		checkLayoutOnly(t, prog+": swapped symbols", compare(t, ours, ref), "symbol order differs")
	}
	ref := xcall(t)
	f := mustParse(t, ref)
	i, j := symbolIndex(t, f, "_Z7stage_bf"), symbolIndex(t, f, "_Z7stage_cfi")
	// Swapping only the symbol entries makes relocations, nv.info and the
	// callgraph name the wrong functions.
	bad := bytes.Clone(ref)
	symtab := mustParse(t, bad).Sections[f.SymtabIndex].Data()
	tmp := bytes.Clone(symtab[24*i : 24*i+24])
	copy(symtab[24*i:24*i+24], symtab[24*j:24*j+24])
	copy(symtab[24*j:24*j+24], tmp)
	rep := compare(t, bad, ref)
	if rep.Equivalent {
		t.Fatalf("symbols swapped without renumbering reported equivalent: %q", rep.Diffs)
	}
	all := strings.Join(rep.Diffs, "\n")
	for _, want := range []string{".rela.text._Z10xcall_mainPfi", ".nv.info:", ".nv.callgraph", ".nv.prototype", "section .text._Z7stage_bf: info"} {
		if !strings.Contains(all, want) {
			t.Errorf("no diff mentions %s:\n%s", want, all)
		}
	}
}

// TestComparePadding changes a byte that no section or table covers.
func TestComparePadding(t *testing.T) {
	ref := xcall(t)
	f := mustParse(t, ref)
	covered := make([]bool, len(ref))
	mark := func(off, n uint64) {
		for k := off; k < off+n && k < uint64(len(covered)); k++ {
			covered[k] = true
		}
	}
	mark(0, elf.EhdrSize)
	mark(f.Header.Shoff, uint64(len(f.Sections))*elf.ShdrSize)
	mark(f.Header.Phoff, uint64(len(f.Progs))*elf.PhdrSize)
	for i, s := range f.Sections {
		if h, _ := f.Shdr(i); s.Data() != nil {
			mark(h.Offset, s.Size)
		}
	}
	gap := -1
	for k, c := range covered {
		if !c {
			gap = k
			break
		}
	}
	if gap < 0 {
		t.Skip("xcall/ref.cubin has no padding")
	}
	ours := bytes.Clone(ref)
	ours[gap] ^= 0xff
	rep := compare(t, ours, ref)
	if rep.Identical || !rep.Equivalent || len(rep.Diffs) != 1 || !strings.Contains(rep.Diffs[0], "padding") {
		t.Errorf("padding byte %#x changed: %+v", gap, rep)
	}
}

func TestCompareMissingSection(t *testing.T) {
	ref := xcall(t)
	f := mustParse(t, ref)
	ours := bytes.Clone(ref)
	// Rename .nv.prototype to .nv.prototypf by changing its name's last byte.
	s := &f.Sections[sectionIndex(t, f, ".nv.prototype")]
	end := int(s.NameOff) + len(".nv.prototype") - 1
	mustParse(t, ours).Sections[f.Header.Shstrndx].Data()[end] = 'f'
	rep := compare(t, ours, ref)
	all := strings.Join(rep.Diffs, "\n")
	if rep.Equivalent || !strings.Contains(all, "section .nv.prototype (ref [10], CUDA_PROTOTYPE, size 0x10) missing from ours") ||
		!strings.Contains(all, "section .nv.prototypf (ours [10]") {
		t.Errorf("renamed section: %+v", rep)
	}
}

func TestCompareBadInput(t *testing.T) {
	ref := xcall(t)
	if _, err := Compare([]byte("not elf"), ref); err == nil || !strings.HasPrefix(err.Error(), "ours: ") {
		t.Errorf("Compare(garbage, ref) error = %v", err)
	}
	if _, err := Compare(ref, ref[:100]); err == nil || !strings.HasPrefix(err.Error(), "ref: ") {
		t.Errorf("Compare(ref, truncated) error = %v", err)
	}
}

func TestMainCommand(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(corpusDir, "xcall", "ref.cubin")
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f := mustParse(t, xcall(t))
	swapped := write("swapped.cubin", swapSections(t, xcall(t), sectionIndex(t, f, ".text._Z7stage_bf"), sectionIndex(t, f, ".text._Z7stage_cfi")))
	flipped := bytes.Clone(xcall(t))
	cfi, _ := f.Shdr(sectionIndex(t, f, ".text._Z7stage_cfi"))
	flipped[cfi.Offset] ^= 1
	bad := write("flipped.cubin", flipped)
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"cmp", ref, ref}, ExitIdentical, "identical\n"},
		{[]string{"cmp", swapped, ref}, ExitEquivalent, "equivalent: layout differs\n"},
		{[]string{"cmp", bad, ref}, ExitDifferent, "not equivalent\n"},
		{[]string{"cmp", ref}, ExitError, ""},
		{[]string{"cmp", filepath.Join(dir, "none"), ref}, ExitError, ""},
		{[]string{"cmp", write("garbage", []byte("garbage")), ref}, ExitError, ""},
		{[]string{"dump", ref}, ExitIdentical, "Section [18] .text._Z7stage_cfi: PROGBITS, size 0x900, sha256 "},
		{[]string{"dump", "-hex", ref}, ExitIdentical, "  000000  "},
		{[]string{"dump"}, ExitError, ""},
		{nil, ExitError, ""},
		{[]string{"frob"}, ExitError, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(c.args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stdout.String(), c.out) {
			t.Errorf("Main(%q) = %d, stdout %q, stderr %q; want %d and %q", c.args, code, stdout.String(), stderr.String(), c.code, c.out)
		}
		if code == ExitError && stderr.Len() == 0 {
			t.Errorf("Main(%q) failed silently", c.args)
		}
	}
}

func FuzzCompare(f *testing.F) {
	for _, prog := range []string{"xcall", "funcptr", "recursion"} {
		ref := readFile(f, filepath.Join(corpusDir, prog, "ref.cubin"))
		dc := readFile(f, filepath.Join(corpusDir, prog, "ref_dc.cubin"))
		n := uint32(len(mustParse(f, ref).Symbols))
		f.Add(ref, dc)
		f.Add(swapSymbols(f, ref, n-2, n-1), ref)
		f.Add(swapSections(f, ref, 1, 2), ref)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		rep, err := Compare(a, b)
		if err != nil {
			return
		}
		if rep.Identical != bytes.Equal(a, b) {
			t.Fatalf("Identical = %v for bytes.Equal = %v", rep.Identical, bytes.Equal(a, b))
		}
		if rep.Identical && (!rep.Equivalent || len(rep.Diffs) > 0) {
			t.Fatalf("identical files: %+v", rep)
		}
		if !rep.Identical && len(rep.Diffs) == 0 {
			t.Fatal("different files with no diffs")
		}
		content := false
		for _, d := range rep.Diffs {
			content = content || strings.HasPrefix(d, "content: ")
		}
		if rep.Equivalent == content {
			t.Fatalf("Equivalent = %v with diffs %q", rep.Equivalent, rep.Diffs)
		}
	})
}
