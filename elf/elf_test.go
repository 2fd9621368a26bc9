package elf

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestSMCompatible checks the table nvlink 11.8 gave for one-kernel
// cubins of every SM nvcc 11.8 writes, each linked alone for every higher
// target: what links, and nothing else.
func TestSMCompatible(t *testing.T) {
	sms := []int{50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90}
	links := map[[2]int]bool{ // {input, target} pairs of different SMs that link
		{50, 52}: true, {60, 61}: true, {70, 75}: true, {80, 86}: true, {80, 89}: true, {86, 89}: true,
	}
	for _, in := range sms {
		for _, target := range sms {
			want := in == target || links[[2]int{in, target}]
			if got := SMCompatible(in, target); got != want {
				t.Errorf("SMCompatible(%d, %d) = %v, want %v", in, target, got, want)
			}
		}
	}
}

// TestSetSM checks that SetSM writes where SM reads, in both layouts, and
// leaves the other bits.
func TestSetSM(t *testing.T) {
	for _, h := range []Header{{Flags: 0x500550}, {Flags: 0x5a5a00, Ident: [16]byte{7: 0x41}}} {
		before := h.Flags
		h.SetSM(86)
		if h.SM() != 86 {
			t.Errorf("flags %#x: SM %d after SetSM(86)", before, h.SM())
		}
		mask := uint32(0xFF)
		if h.Ident[7] == 0x41 {
			mask = 0xFF00
		}
		if h.Flags&^mask != before&^mask {
			t.Errorf("flags %#x -> %#x: other bits changed", before, h.Flags)
		}
	}
}

// TestSectionSize keeps the decoded section record at its size: a link
// holds one per input section for its whole run.
func TestSectionSize(t *testing.T) {
	if n := unsafe.Sizeof(Section{}); unsafe.Sizeof(uintptr(0)) == 8 && n != 40 {
		t.Errorf("Section is %d bytes, want 40", n)
	}
}

// TestWideFlags checks a section whose sh_flags has bits above the low 32
// (no flag the ELF specification defines; a malformed input, whose flags
// nvlink 11.8 copies to a data section's output): ParseCompact declines
// the file, and a File parsed whole gives all 64 bits through SecFlags
// and Shdr, the low 32 through Section.Flags.
func TestWideFlags(t *testing.T) {
	b, f := readAndParse(t, corpusCubins(t)[0])
	b = bytes.Clone(b)
	i := len(f.Sections) - 1
	at := f.Header.Shoff + uint64(i)*ShdrSize + 8
	want := le.Uint64(b[at:]) | 1<<40
	le.PutUint64(b[at:], want)
	keep := func(n int) []byte { return make([]byte, n) }
	if _, err := ParseCompact(bytes.Clone(b), nil, keep, nil, nil, nil, nil); err != ErrNotCompact {
		t.Fatalf("ParseCompact: %v, want ErrNotCompact", err)
	}
	w, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := w.Shdr(i)
	if w.SecFlags(i) != want || h.Flags != want || uint64(w.Sections[i].Flags) != want&0xFFFFFFFF {
		t.Errorf("flags %#x (header %#x, Section %#x), want %#x", w.SecFlags(i), h.Flags, w.Sections[i].Flags, want)
	}
	if c, err := ParseCompact(bytes.Clone(f.Raw), nil, keep, nil, nil, nil, nil); err != nil || c.SecFlags(i) != uint64(f.Sections[i].Flags) {
		t.Fatalf("ParseCompact of the unchanged file: %v", err)
	}
}
