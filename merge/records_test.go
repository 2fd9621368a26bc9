package merge

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/hugemem"
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
	ctx := &Context{}
	if s.Data() != nil || s.Pieces() != nil {
		t.Fatal("a new section has contents or pieces")
	}
	s.one[0] = Piece{Obj: 1, Sec: 2, Offset: 3}
	ctx.setPieces(&s, s.one[:])
	if s.Data() != nil || len(s.Pieces()) != 1 || s.Pieces()[0] != s.one[0] {
		t.Fatalf("one piece: data %v, pieces %v", s.Data(), s.Pieces())
	}
	l := s.Pieces()
	for i := range 100 {
		if len(l) == cap(l) {
			l = append(make([]Piece, 0, 2*len(l)), l...)
		}
		l = append(l, Piece{Obj: int32(i), Sec: int32(i), Offset: uint64(i)})
		ctx.setPieces(&s, l)
		l = s.Pieces()
	}
	runtime.GC()
	if got := s.Pieces(); len(got) != 101 || got[0].Offset != 3 || got[100] != (Piece{Obj: 99, Sec: 99, Offset: 99}) || s.relocs() != nil {
		t.Fatalf("101 pieces: got %d, first %v, last %v", len(got), got[0], got[len(got)-1])
	}
	ctx.setData(&s, []byte{7})
	if s.Pieces() != nil || len(s.Data()) != 1 {
		t.Fatalf("contents in place of pieces: data %v, pieces %v", s.Data(), s.Pieces())
	}
	ctx.setPieces(&s, nil)
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

// TestRecordsKeepWhatTheyName checks that sections and symbols in
// pointer-free slabs (recordSlab), listed in pointer-free lists
// (appendRecord), which the collector does not scan, stay alive through
// collections with the heap memory they name: names (in the string
// tables, releaseNames), contents, pieces grown past the inline one,
// relocations and gen.
func TestRecordsKeepWhatTheyName(t *testing.T) {
	t.Run("heap", func(t *testing.T) { testRecordsKeep(t, &Context{}, 300, false) })
	t.Run("arena", func(t *testing.T) {
		ctx := &Context{mem: &hugemem.Arena{}, recordsMapped: true}
		defer ctx.mem.Free()
		testRecordsKeep(t, ctx, 300, false)
	})
	// Past the slabs' doubling, with the string queue's consumer making
	// slabs ready (slabfeed.go).
	t.Run("fed", func(t *testing.T) { testRecordsKeep(t, &Context{}, 12000, true) })
}

func testRecordsKeep(t *testing.T, ctx *Context, n int, fed bool) {
	ctx.ShStr, ctx.Str = NewStrTab(), newStrTabNoOrdinals()
	ctx.secNames = newSecNames(0)
	var q *strQueue
	if fed {
		q = openStrQueue(nil, newSlabFeed(1<<24, 1<<24), ctx.Str, ctx.ShStr) // (no budget in the way)
		ctx.strq = q
		for len(q.slabs.secs) < cap(q.slabs.secs) || len(q.slabs.syms) < cap(q.slabs.syms) {
			runtime.Gosched() // (until the consumer has the slabs ready)
		}
	}
	for i := range n {
		name := fmt.Sprintf(".nv.test.%d", i)
		s := ctx.newSection(name, elf.SHTProgbits, 0, 4, 0)
		switch i % 4 {
		case 0:
			ctx.setData(s, []byte(name))
		case 1:
			for k := range 5 {
				l := s.Pieces()
				if len(l) == cap(l) {
					l = append(make([]Piece, 0, 2*len(l)+1), l...)
				}
				ctx.setPieces(s, append(l, Piece{Obj: int32(i), Sec: int32(k), Offset: uint64(k)}))
			}
		case 2:
			s.Type = elf.SHTRela
			ctx.setRelocs(s, []OutRel{{Offset: uint64(i)}})
		case 3:
			ctx.setGen(s, &genSec{minStack: i})
		}
		newSym(ctx, OutSym{Name: s.Name, Sec: s.ID, IsSecSym: true}, false)
	}
	if fed {
		q.close()
		ctx.keepFed(q.slabs)
		ctx.strq = nil
		if q.slabs.taken == 0 {
			t.Errorf("no ready slab taken")
		}
	}
	// The names move into the string tables (releaseNames), which then
	// grow past them: the records keep the tables' first buffers.
	ctx.Opts, ctx.names = &Options{}, &hugemem.Arena{}
	if err := ctx.releaseNames(true); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		ctx.ShStr.Add(fmt.Sprintf(".nv.more.%d", i))
		ctx.Str.Add(fmt.Sprintf("more%d", i))
	}
	for range 3 {
		runtime.GC()
		// (Garbage of every small size class, to take any freed slot.)
		var garbage [][]byte
		for size := 8; size <= 256; size += 8 {
			for range 200 {
				garbage = append(garbage, bytes.Repeat([]byte{0xAA}, size))
			}
		}
		for size := 512; size <= 64<<10; size *= 2 { // (the slabs and lists too)
			for range 20 {
				garbage = append(garbage, bytes.Repeat([]byte{0xAA}, size))
			}
		}
		runtime.KeepAlive(garbage)
	}
	for i, s := range ctx.Secs {
		name := fmt.Sprintf(".nv.test.%d", i)
		if s.Name != name || ctx.Syms[i].Name != name {
			t.Fatalf("section %d named %q, its symbol %q, want %q", i, s.Name, ctx.Syms[i].Name, name)
		}
		switch i % 4 {
		case 0:
			if string(s.Data()) != name {
				t.Errorf("section %d: contents %q", i, s.Data())
			}
		case 1:
			if l := s.Pieces(); len(l) != 5 || l[4] != (Piece{Obj: int32(i), Sec: 4, Offset: 4}) {
				t.Errorf("section %d: pieces %v", i, l)
			}
		case 2:
			if l := s.relocs(); len(l) != 1 || l[0].Offset != uint64(i) {
				t.Errorf("section %d: relocations %v", i, l)
			}
		case 3:
			if s.gen == nil || s.gen.minStack != i {
				t.Errorf("section %d: gen %v", i, s.gen)
			}
		}
	}
}

// TestReleaseNamesCheck checks that, under the check (tests), a record
// whose name is not at its offset in its string table is an error of the
// link, not a panic on a worker goroutine.
func TestReleaseNamesCheck(t *testing.T) {
	ctx := &Context{Opts: &Options{}, names: &hugemem.Arena{}}
	ctx.ShStr, ctx.Str = NewStrTab(), newStrTabNoOrdinals()
	ctx.secNames = newSecNames(0)
	s := ctx.newSection(".nv.test", elf.SHTProgbits, 0, 4, 0)
	newSym(ctx, OutSym{Name: "sym", Sec: s.ID}, false)
	if err := ctx.releaseNames(true); err != nil {
		t.Fatalf("names at their offsets: %v", err)
	}
	ctx.names = &hugemem.Arena{}
	s.Name = ".nv.tesT" // (not what .shstrtab holds at its offset)
	err := ctx.releaseNames(true)
	if err == nil || !errors.Is(err, errCheck) || !strings.Contains(err.Error(), `section 0's name ".nv.tesT" is not at its offset`) {
		t.Fatalf("a name not at its offset: err = %v, want errCheck naming it", err)
	}
	s.Name = ".nv.test"
	ctx.Syms[0].Name = "syM"
	ctx.names = &hugemem.Arena{}
	err = ctx.releaseNames(true)
	if err == nil || !errors.Is(err, errCheck) || !strings.Contains(err.Error(), `symbol 0's name "syM" is not at its offset`) {
		t.Fatalf("a symbol's name not at its offset: err = %v, want one naming it", err)
	}
}
