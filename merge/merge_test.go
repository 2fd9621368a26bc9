package merge

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestPatchBitField(t *testing.T) {
	// A 32-bit field at bit 32 of an instruction word, with an addend
	// already in the field (nvlink's non-absolute mode adds to it).
	b := []byte{0xAA, 0xBB, 0xCC, 0xDD, 0x10, 0, 0, 0, 0xEE, 0xFF}
	patch(b, field{pos: 32, width: 32}, 0x400)
	want := []byte{0xAA, 0xBB, 0xCC, 0xDD, 0x10, 0x04, 0, 0, 0xEE, 0xFF}
	if !bytes.Equal(b, want) {
		t.Fatalf("got % x, want % x", b, want)
	}
	// A field crossing into the second word, with a shift (HI_32 style).
	c := make([]byte, 16)
	patch(c, field{pos: 60, width: 8, shift: 32}, 0xAB_0000_0000)
	if got := extract(le64(c[0:8]), le64(c[8:16]), 60, 8); got != 0xAB {
		t.Fatalf("crossing field = %#x, want 0xab", got)
	}
	for i := range c {
		if (i < 7 || i > 8) && c[i] != 0 {
			t.Fatalf("byte %d written outside the field: % x", i, c)
		}
	}
}

// TestConstField1940 pins R_CUDA_CONST_FIELD19_40 (sm_80 and older): the
// field at bit 40 holds the byte offset in 32-bit words (observed: nvlink
// 11.8 writes 0x0d for the 0x34th byte of .nv.constant3, generated sm_80
// workloads), with the implicit addend of a REL input already in it.
func TestConstField1940(t *testing.T) {
	f := relocFields[rConstField1940]
	b := make([]byte, 16)
	patch(b, f, 0x34)
	if got := extract(le64(b[0:8]), le64(b[8:16]), 40, 14); got != 0x0d {
		t.Fatalf("offset field = %#x, want 0xd", got)
	}
	patch(b, f, 0x8) // a second reference adds to the field (REL addend)
	if got := extract(le64(b[0:8]), le64(b[8:16]), 40, 14); got != 0x0f {
		t.Fatalf("offset field = %#x, want 0xf", got)
	}
}

func TestStrTab(t *testing.T) {
	s := NewStrTab()
	a := s.Add("abc")
	if s.Add("abc") != a || a != 1 {
		t.Fatalf("dedup failed: %d", a)
	}
	d := s.AddDup("abc")
	if d == a {
		t.Fatal("AddDup must append a second copy")
	}
	if got := string(s.Bytes()); got != "\x00abc\x00abc\x00" {
		t.Fatalf("table %q", got)
	}
}

func TestDumpAfterMerge(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/xcall")
	var dump, stderr bytes.Buffer
	opts := &Options{Arch: "sm_90", Output: filepath.Join(t.TempDir(), "out.cubin"),
		Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin"), filepath.Join(dir, "c.cubin")},
		Dump:   "merge", DumpTo: &dump}
	if rc := Link(opts, &bytes.Buffer{}, &stderr, "warplink"); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	for _, want := range []string{"objects (3):", ".text._Z7stage_bf", "_Z10xcall_mainPfi GLOBAL/FUNC"} {
		if !strings.Contains(dump.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, dump.String())
		}
	}
}
