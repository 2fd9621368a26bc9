package merge

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestOutSecSize keeps the output section record at its size: a link
// makes some 4 an object (about 480,000 at 100,000 generated objects),
// so every 8 bytes are about 4 MB of the peak.
func TestOutSecSize(t *testing.T) {
	if n := unsafe.Sizeof(OutSec{}); n != 128 {
		t.Errorf("OutSec is %d bytes, want 128", n)
	}
}

// TestOutSecBody checks that a section's one body holds either its
// contents or its pieces: setting one drops the other, and pieces grown
// past the inline one survive a collection.
func TestOutSecBody(t *testing.T) {
	var s OutSec
	if s.Data() != nil || s.Pieces() != nil {
		t.Fatal("a new section has contents or pieces")
	}
	s.one[0] = Piece{Obj: 1, Sec: 2, Offset: 3}
	s.setPieces(s.one[:])
	if s.Data() != nil || len(s.Pieces()) != 1 || s.Pieces()[0] != s.one[0] {
		t.Fatalf("one piece: data %v, pieces %v", s.Data(), s.Pieces())
	}
	l := s.Pieces()
	for i := range 100 {
		if len(l) == cap(l) {
			l = append(make([]Piece, 0, 2*len(l)), l...)
		}
		l = append(l, Piece{Obj: int32(i), Sec: int32(i), Offset: uint64(i)})
		s.setPieces(l)
		l = s.Pieces()
	}
	runtime.GC()
	if got := s.Pieces(); len(got) != 101 || got[0].Offset != 3 || got[100] != (Piece{Obj: 99, Sec: 99, Offset: 99}) || s.relocs() != nil {
		t.Fatalf("101 pieces: got %d, first %v, last %v", len(got), got[0], got[len(got)-1])
	}
	s.SetData([]byte{7})
	if s.Pieces() != nil || len(s.Data()) != 1 {
		t.Fatalf("contents in place of pieces: data %v, pieces %v", s.Data(), s.Pieces())
	}
	s.setPieces(nil)
	if s.Data() != nil || s.Pieces() != nil {
		t.Fatal("no pieces left contents or pieces")
	}
}

// TestEntsizeWide checks that an entry size too wide for OutSec's field
// is kept whole in the context.
func TestEntsizeWide(t *testing.T) {
	ctx := &Context{}
	for id, v := range []uint32{0, 24, wideEntsize - 1, wideEntsize, 1 << 20, 1<<32 - 1} {
		s := &OutSec{ID: int32(id)}
		ctx.setEntsize(s, v)
		if got := ctx.entsize(s); got != v {
			t.Errorf("entsize %d read back as %d", v, got)
		}
	}
}

// TestSecOffWide checks that a contribution offset too wide for SecOff's
// 32 bits is kept whole in the object's objRare.
func TestSecOffWide(t *testing.T) {
	o := &Obj{SecOff: make([]uint32, 4)}
	offs := []uint64{0, wideOff - 1, wideOff, 1 << 40}
	for i, v := range offs {
		o.setSecOff(i, v)
	}
	for i, v := range offs {
		if got := o.secOff(i); got != v {
			t.Errorf("offset %#x read back as %#x", v, got)
		}
	}
	if o.rare == nil || len(o.rare.wideOff) != 2 {
		t.Errorf("wide offsets kept: %v, want 2", o.rare)
	}
}
