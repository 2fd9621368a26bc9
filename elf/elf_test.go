package elf

import "testing"

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
