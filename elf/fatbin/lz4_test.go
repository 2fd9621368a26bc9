package fatbin

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
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
			if last { // (liblz4's end of a block: 12 literals or more, lastLiterals)
				for len(lit) < 12 {
					lit = append(lit, byte(r.IntN(4)))
				}
			}
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

// TestLZ4BlockEnd checks the end of a block as liblz4 requires it, on
// blocks holding a cubin (xcall's c.cubin, which ends in 15 zeros;
// managed's b.cubin) that nvlink 11.8 was given as the one LZ4 member of
// a .fatbin, linked with the program's other cubins: those it refused ("Uncompress failed", the
// member then missing) DecodeLZ4Block refuses; those it linked it decodes.
// (A match at offset 0 crashed it: SIGFPE.)
func TestLZ4BlockEnd(t *testing.T) {
	c, err := os.ReadFile(filepath.Join(corpus, "xcall", "c.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(c)
	length := func(b []byte, k int) []byte {
		for k -= 15; k >= 255; k -= 255 {
			b = append(b, 255)
		}
		return append(b, byte(k))
	}
	// seq appends a sequence: literals lit, then (ml > 0) a match of ml
	// bytes at offset 1 (in the cubin's trailing zeros); nibble is the
	// token's match length field when there is no match.
	seq := func(b, lit []byte, ml int, nibble byte) []byte {
		tok := byte(min(len(lit), 15))<<4 | nibble
		if ml > 0 {
			tok = byte(min(len(lit), 15))<<4 | byte(min(ml-4, 15))
		}
		b = append(b, tok)
		if len(lit) >= 15 {
			b = length(b, len(lit))
		}
		b = append(b, lit...)
		if ml > 0 {
			b = append(b, 1, 0)
			if ml-4 >= 15 {
				b = length(b, ml-4)
			}
		}
		return b
	}
	// offset0 sets to 0 the offset of the match after the first lit
	// literals of block (one sequence of literals, then its offset).
	offset0 := func(block []byte, lit int) []byte {
		at := len(length(nil, lit)) + 1 + lit
		block[at], block[at+1] = 0, 0
		return block
	}
	// longMatch is managed's b.cubin as literals, a 19-byte match (its
	// length through an extension byte, so that 8 bytes of input follow
	// the literals) ending tail bytes before the end, and tail literals.
	m, err := os.ReadFile(filepath.Join(corpus, "managed", "b.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	longMatch := func(tail int) []byte {
		const ml = 19
		st := len(m) - tail - ml
		for off := 1; off <= st && off < 1<<16; off++ {
			if bytes.Equal(m[st:st+ml], m[st-off:st-off+ml]) {
				b := length([]byte{0xFF}, st)
				b = append(b, m[:st]...)
				b = append(b, byte(off), byte(off>>8), ml-4-15, byte(tail)<<4)
				return append(b, m[len(m)-tail:]...)
			}
		}
		t.Fatalf("managed/b.cubin: no earlier copy of the %d bytes %d before its end", ml, tail)
		return nil
	}
	for _, tc := range []struct {
		name  string
		block []byte
		ok    bool
	}{
		{"literals only", seq(nil, c, 0, 0), true},
		{"the last token with a match length", seq(nil, c, 0, 3), true},
		{"ends with a match", seq(nil, c[:n-8], 8, 0), false},
		{"a match ending 5 bytes before the end", seq(seq(nil, c[:n-13], 8, 0), c[n-5:], 0, 0), true},
		{"a match ending 4 bytes before the end", seq(seq(nil, c[:n-12], 8, 0), c[n-4:], 0, 0), false},
		{"literals ending 13 bytes before the end, then more", seq(seq(nil, c[:n-13], 7, 0), c[n-6:], 0, 0), true},
		{"literals ending 10 bytes before the end, then more", seq(seq(nil, c[:n-10], 4, 0), c[n-6:], 0, 0), false},
		{"a match at offset 0", offset0(seq(seq(nil, c[:n-20], 8, 0), c[n-12:], 0, 0), n-20), false},
		{"managed: a long match ending 5 bytes before the end", longMatch(5), true},
		{"managed: a long match ending 4 bytes before the end", longMatch(4), false},
	} {
		want := c
		if strings.HasPrefix(tc.name, "managed: ") {
			want = m
		}
		got, err := DecodeLZ4Block(tc.block, len(want))
		switch {
		case tc.ok && (err != nil || !bytes.Equal(got, want)):
			t.Errorf("%s: %v", tc.name, err)
		case !tc.ok && err == nil:
			t.Errorf("%s: decoded; nvlink refuses it", tc.name)
		}
	}
}
