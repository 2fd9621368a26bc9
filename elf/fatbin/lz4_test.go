package fatbin

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLZ4Random decodes random blocks of literals and matches, matches
// overlapping what they write included, against the output built byte by
// byte as the block was made.
func TestLZ4Random(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	length := func(b []byte, n int) []byte { // the extension bytes of a length past 15
		for n -= 15; n >= 255; n -= 255 {
			b = append(b, 255)
		}
		return append(b, byte(n))
	}
	for round := range 500 {
		var block, want []byte
		for seq := r.IntN(20); ; seq-- {
			lit := make([]byte, r.IntN(40))
			for i := range lit {
				lit[i] = byte(r.IntN(4)) // (few values: runs and repeats)
			}
			last := seq <= 0
			ml := 4 + r.IntN(300)
			if len(want)+len(lit) == 0 && !last {
				lit = append(lit, 'x') // (a match needs something behind it)
			}
			tok := byte(min(len(lit), 15)) << 4
			if !last {
				tok |= byte(min(ml-4, 15))
			}
			block = append(block, tok)
			if len(lit) >= 15 {
				block = length(block, len(lit))
			}
			block = append(block, lit...)
			want = append(want, lit...)
			if last {
				break
			}
			moff := 1 + r.IntN(min(len(want), 70))
			block = append(block, byte(moff), byte(moff>>8))
			if ml-4 >= 15 {
				block = length(block, ml-4)
			}
			for range ml { // (byte by byte: an overlapping match reads what it wrote)
				want = append(want, want[len(want)-moff])
			}
		}
		got, err := DecodeLZ4Block(block, len(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("round %d: %v, %d bytes, want %d", round, err, len(got), len(want))
		}
	}
}
