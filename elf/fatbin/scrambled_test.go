package fatbin

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// TestScrambledMember decodes CUDA 12.5's scrambled NVVM members
// (FlagScrambled) on real bytes (testdata/scrambled, see its README):
// fatbinary 12.5 made scrambled.fatbin from the IR nvcc stores
// uncompressed (stored.ir) and plain.fatbin from the IR nvlink 12.5 hands
// libnvvm for that member (plain.ir). The scrambled member is the plain
// member's LZ4 block, the same length, transformed under the key the IR
// carries; Contents gives the plain IR for both.
func TestScrambledMember(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile("testdata/scrambled/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	member := func(name string) Member {
		c, err := ParseFirst(read(name))
		if err != nil || len(c.Members) != 1 {
			t.Fatalf("%s: %v, %d members", name, err, len(c.Members))
		}
		return c.Members[0]
	}
	stored, plain := read("stored.ir"), read("plain.ir")
	scr, pl := member("scrambled.fatbin"), member("plain.fatbin")

	if scr.Flags != Flag64Bit|FlagLinux|FlagCompressLZ4|FlagScrambled || pl.Flags != Flag64Bit|FlagLinux|FlagCompressLZ4 {
		t.Errorf("flags 0x%x and 0x%x, want 0x12011 and 0x2011", scr.Flags, pl.Flags)
	}
	// The key: the word at IR offset 0x28, copied to member header 0x30;
	// the plain IR has zero there, and its header before it is the same.
	key := binary.LittleEndian.Uint32(stored[0x28:])
	if key == 0 || binary.LittleEndian.Uint32(scr.Header[0x30:]) != key {
		t.Errorf("key 0x%x, member header 0x%x", key, binary.LittleEndian.Uint32(scr.Header[0x30:]))
	}
	if binary.LittleEndian.Uint32(pl.Header[0x30:]) != 0 || binary.LittleEndian.Uint32(plain[0x28:]) != 0 ||
		!bytes.Equal(stored[:0x28], plain[:0x28]) || len(stored) != len(plain) {
		t.Error("the plain member or IR carries a key, or its IR header differs")
	}
	if len(scr.Payload) != len(pl.Payload) || scr.Uncompressed != pl.Uncompressed || scr.Uncompressed != uint64(len(plain)) {
		t.Errorf("sizes: scrambled %d/%d, plain %d/%d, IR %d", len(scr.Payload), scr.Uncompressed, len(pl.Payload), pl.Uncompressed, len(plain))
	}
	if got, err := pl.Contents(); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("plain member: %v, contents equal the plain IR: %v", err, bytes.Equal(got, plain))
	}
	if bytes.Equal(scr.Payload, pl.Payload) {
		t.Error("the scrambled payload is the plain one")
	}
	if got := descramble(scr.Payload, key); !bytes.Equal(got, pl.Payload) {
		t.Error("the scrambled payload does not descramble to the plain member's LZ4 block")
	}
	if got, err := scr.Contents(); err != nil || !bytes.Equal(got, plain) {
		t.Errorf("scrambled member: %v, contents equal the plain IR: %v", err, bytes.Equal(got, plain))
	}
}

// scramble is descramble's inverse, for the tests.
func scramble(p []byte, key uint32) []byte {
	var inv [256]byte
	for i, v := range scrambleBox {
		inv[v] = byte(i)
	}
	c := make([]byte, len(p))
	prev := ^byte(key)
	s := key
	var w [4]byte
	for i, b := range p {
		if i%4 == 0 {
			s = s*1103515245 + 12345
			binary.LittleEndian.PutUint32(w[:], s)
		}
		c[i] = inv[b^w[i%4]] ^ prev
		prev = c[i]
	}
	return c
}

// FuzzDescramble checks that descramble inverts scramble for any bytes
// and key, and that a member with FlagScrambled set decodes or fails
// without a panic.
func FuzzDescramble(f *testing.F) {
	f.Add([]byte("BC\xc0\xde plain"), uint32(0x8aa9eb4f))
	f.Add([]byte{}, uint32(0))
	f.Fuzz(func(t *testing.T, p []byte, key uint32) {
		if got := descramble(scramble(p, key), key); !bytes.Equal(got, p) {
			t.Fatalf("round trip of %x under 0x%x gives %x", p, key, got)
		}
		h := make([]byte, memberHdrSize)
		binary.LittleEndian.PutUint64(h[40:], Flag64Bit|FlagLinux|FlagCompressLZ4|FlagScrambled)
		binary.LittleEndian.PutUint32(h[scrambleKeyOff:], key)
		m := Member{Header: h, Payload: p, Flags: Flag64Bit | FlagLinux | FlagCompressLZ4 | FlagScrambled, Uncompressed: uint64(len(p)) * 3}
		_, _ = m.Contents()
	})
}
