package merge

import (
	"testing"

	"github.com/warplink/warplink/elf"
)

// TestSectionsOverlap covers the in-order fast path and the sorted one.
func TestSectionsOverlap(t *testing.T) {
	d := make([]byte, 256) // (the file: a section's place in it is where its Data starts)
	sec := func(off, n uint64) elf.Section {
		s := elf.Section{Size: n}
		s.SetData(d[off : off+n])
		return s
	}
	for _, c := range []struct {
		secs []elf.Section
		want bool
	}{
		{[]elf.Section{{}, sec(64, 16), sec(80, 8), {}, sec(96, 4)}, false},
		{[]elf.Section{sec(64, 16), sec(72, 8)}, true},              // in index order, overlapping
		{[]elf.Section{sec(96, 4), sec(64, 16), sec(80, 8)}, false}, // out of order, disjoint
		{[]elf.Section{sec(96, 8), sec(64, 40), sec(200, 8)}, true}, // out of order, overlapping
	} {
		if got := sectionsOverlap(&elf.File{Sections: c.secs}); got != c.want {
			t.Errorf("%+v: got %v", c.secs, got)
		}
	}
}
