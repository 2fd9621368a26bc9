package merge

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/warplink/warplink/elf"
)

// TestPieceCursorMatchesFillSection: filling a pieced section part by
// part with a pieceCursor, on this goroutine (fill) or over all threads
// (fillAll, in spans of any size), gives the bytes fillSection gives each
// part, for pieces in offset order and not (out of order, overlapping,
// with gaps and empty pieces), whatever the part size.
func TestPieceCursorMatchesFillSection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 600 {
		nobj := 1 + r.IntN(4)
		ctx := &Context{Opts: &Options{}}
		ctx.Opts.Threads = 1 + r.IntN(3)
		for o := range nobj {
			f := &elf.File{}
			for range 1 + r.IntN(5) {
				d := make([]byte, r.IntN(40))
				for i := range d {
					d[i] = byte(r.Uint32())
				}
				s := elf.Section{Size: uint64(len(d))}
				s.SetData(d)
				f.Sections = append(f.Sections, s)
			}
			ctx.Objs = append(ctx.Objs, &Obj{ID: o, F: f})
		}
		var ps []Piece
		off := uint64(0)
		sorted := round%2 == 0
		for range r.IntN(30) {
			o := r.IntN(nobj)
			p := Piece{Obj: int32(o), Sec: int32(r.IntN(len(ctx.Objs[o].F.Sections)))}
			switch {
			case sorted && round%4 == 0:
				off += uint64(r.IntN(24)) // (gaps, overlaps with longer pieces)
				p.Offset = off
			case sorted:
				// As merge lays them: each after the one before, at
				// most an alignment's gap between.
				p.Offset = off + uint64(r.IntN(4))
				off = p.Offset + uint64(len(ctx.Objs[o].F.Sections[p.Sec].Data()))
			default:
				p.Offset = uint64(r.IntN(200))
			}
			ps = append(ps, p)
		}
		size := uint64(0)
		for _, p := range ps {
			size = max(size, p.Offset+uint64(len(ctx.Objs[p.Obj].F.Sections[p.Sec].Data())))
		}
		s := &OutSec{}
		ctx.setPieces(s, ps)
		part := uint64(1 + r.IntN(64))
		c, all := newPieceCursor(s.Pieces()), newPieceCursor(s.Pieces())
		all.span = uint64(1 + r.IntN(20))
		for lo := uint64(0); lo < size; lo += part {
			n := min(part, size-lo)
			want, got := make([]byte, n), bytes.Repeat([]byte{0xee}, int(n))
			ctx.fillSection(s, want, lo)
			c.fill(ctx, got, lo)
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d (sorted %v, part %d) at %d: got %x, want %x", round, sorted, part, lo, got, want)
			}
			got = bytes.Repeat([]byte{0xee}, int(n))
			all.fillAll(ctx, got, lo)
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d (sorted %v, part %d, span %d, fillAll) at %d: got %x, want %x", round, sorted, part, all.span, lo, got, want)
			}
		}
	}
}
