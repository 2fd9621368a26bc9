package fatbin

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// seedMembers calls add with the payload and uncompressed size of every
// compressed member (flag, as FlagCompressLZ4) of the corpus host
// objects' fatbinaries.
func seedMembers(f *testing.F, flag uint64, add func(payload []byte, n int)) {
	k := 0
	for _, o := range hostObjects(f)[:6] {
		cs, err := Parse(relfatbin(f, read(f, o)))
		if err != nil {
			f.Fatal(err)
		}
		for _, c := range cs {
			for _, m := range c.Members {
				if m.Flags&flagCompressMask == flag {
					add(m.Payload, int(m.Uncompressed))
					k++
				}
			}
		}
	}
	if k == 0 {
		f.Fatalf("no member compressed with flags 0x%x", flag)
	}
}

// refLZ4 decodes an LZ4 block of n bytes with a reference decoder
// (klauspost/compress's LZ4 to S2 converter, then its S2 decoder); ok
// false when it refuses the block. Unlike liblz4 and DecodeLZ4Block, the
// converter does not know the output's size, so it takes blocks whose
// end liblz4 refuses (a match in the last 5 bytes, ...); and it refuses a
// last token with a match length, which they ignore.
func refLZ4(src []byte, n int) ([]byte, bool) {
	var conv s2.LZ4Converter
	s2b := binary.AppendUvarint(make([]byte, 0, 2*len(src)+64), uint64(n))
	s2b, got, err := conv.ConvertBlock(s2b, src)
	if err != nil || got != n {
		return nil, false
	}
	out, err := s2.Decode(nil, s2b)
	return out, err == nil && len(out) == n
}

// lastToken is the offset of the last token of a block DecodeLZ4Block
// accepted.
func lastToken(src []byte) int {
	i, last := 0, 0
	for i < len(src) {
		last = i
		tok := src[i]
		i++
		lit := int(tok >> 4)
		if lit == 15 {
			for {
				c := src[i]
				i++
				lit += int(c)
				if c != 255 {
					break
				}
			}
		}
		if i += lit; i >= len(src) {
			break
		}
		i += 2 // the offset
		if tok&15 == 15 {
			for src[i] == 255 {
				i++
			}
			i++
		}
	}
	return last
}

// FuzzLZ4 checks DecodeLZ4Block against the reference decoder (refLZ4):
// a block DecodeLZ4Block decodes, the reference decodes to the same bytes
// (its last token's match length cleared); a block the reference decodes
// and DecodeLZ4Block refuses breaks liblz4's rules for the end of a block
// (lz4LastLiterals), and the error says which. Every error is "bad LZ4
// data".
func FuzzLZ4(f *testing.F) {
	seedMembers(f, FlagCompressLZ4, func(p []byte, n int) {
		if _, ok := refLZ4(p, n); !ok {
			f.Fatalf("the reference refuses a corpus member's block (%d bytes)", n)
		}
		f.Add(p, n)
	})
	f.Add([]byte{0x1f, 'a', 1, 0, 0xff, 0x10, 0xc0, '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b'}, 1+4+15+255+16+12) // an overlapping match with a long length
	f.Fuzz(func(t *testing.T, src []byte, n int) {
		if n < 0 || n > 1<<20 {
			return
		}
		got, err := DecodeLZ4Block(src, n)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "bad LZ4 data: ") {
				t.Fatalf("error %q", err)
			}
			endRule := strings.Contains(msg, "but do not end the block") || strings.Contains(msg, "in the last 5 bytes")
			if _, refOK := refLZ4(src, n); refOK && !endRule {
				t.Fatalf("the reference decodes the block to %d bytes; DecodeLZ4Block: %v", n, err)
			}
			return
		}
		if len(got) != n {
			t.Fatalf("%d bytes, want %d", len(got), n)
		}
		cleared := bytes.Clone(src)
		if len(cleared) > 0 {
			cleared[lastToken(src)] &^= 0x0F
		}
		if ref, refOK := refLZ4(cleared, n); !refOK || !bytes.Equal(got, ref) {
			t.Fatalf("the reference decodes the block (its last match length cleared) differently (%v)", refOK)
		}
	})
}

// FuzzZstd checks decodeZstd (the standard library's decoder) against
// klauspost/compress's zstd decoder: each decodes what the other decodes
// to n bytes, to the same bytes.
func FuzzZstd(f *testing.F) {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	seedMembers(f, FlagCompressLZ4, func(p []byte, n int) {
		if b, err := DecodeLZ4Block(p, n); err == nil {
			f.Add(enc.EncodeAll(b, nil), uint32(n))
		}
	})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58, 0x11, 0, 0}, uint32(2))
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(64<<20))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte, n uint32) {
		if uint64(n)/maxExpand > uint64(len(src)) {
			return // (Member.Contents refuses it first)
		}
		got, err := decodeZstd(src, uint64(n))
		ref, rerr := dec.DecodeAll(src, nil)
		refOK := rerr == nil && len(ref) == int(n)
		switch {
		case err == nil && !refOK:
			t.Fatalf("decodeZstd decodes %d bytes; the reference: %d bytes, %v", n, len(ref), rerr)
		case err != nil && refOK:
			t.Fatalf("the reference decodes %d bytes; decodeZstd: %v", n, err)
		case err == nil && !bytes.Equal(got, ref):
			t.Fatal("decodeZstd and the reference decode the frames differently")
		}
	})
}
