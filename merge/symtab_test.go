package merge

import (
	"bytes"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
)

// TestFillSymtab: .symtab made run by run (fillSymtab, for a table larger
// than a run) holds the bytes buildSymtab encodes whole, for runs of any
// whole number of entries, over many of indexSymbols' spans, with dead
// symbols among the locals and globals and a value in the null symbol.
func TestFillSymtab(t *testing.T) {
	ctx := newContext(&Options{}, &diag.Bag{}, "warplink")
	const n = 5*symAtStride + 77
	for i := range n {
		s := OutSym{Name: "s", Value: uint64(i) * 16, Size: uint64(i % 7), Info: elf.STTFunc, Sec: -1, Shndx: uint16(i % 3), nameOff: uint32(i)}
		s.dead = i%5 == 3 || i > n-40 && i%2 == 0
		ctx.Syms = append(ctx.Syms, &s)
		if i < n/3 {
			ctx.Locals = append(ctx.Locals, int32(i))
		} else {
			ctx.Globals = append(ctx.Globals, int32(i))
		}
	}
	ctx.nullSymValue = 0x1234
	indexSymbols(ctx)
	want := buildSymtab(ctx, nil)
	for _, part := range []int{1, 7, symAtStride - 1, symAtStride, 3*symAtStride + 5, ctx.nsyms} {
		ctx.symOut = &symtabOut{}
		got := make([]byte, 0, len(want))
		for lo := 0; lo < len(want); lo += part * elf.SymSize {
			b := bytes.Repeat([]byte{0xEE}, min(part*elf.SymSize, len(want)-lo))
			ctx.fillSymtab(b, uint64(lo))
			got = append(got, b...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("runs of %d entries: the table differs from buildSymtab's", part)
		}
	}
}
