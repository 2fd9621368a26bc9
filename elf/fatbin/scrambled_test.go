package fatbin

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"
)

// TestScrambledMember records what is known of CUDA 12.5's scrambled NVVM
// members (FlagScrambled) on real bytes (testdata/scrambled, see its
// README): fatbinary 12.5 made scrambled.fatbin from the IR nvcc stores
// uncompressed (stored.ir) and plain.fatbin from the IR nvlink 12.5 hands
// libnvvm for that member (plain.ir). The scrambled member is the plain
// member's LZ4 block, the same length, transformed under the key the IR
// carries; Contents refuses it until that transform is decoded.
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
	if _, err := scr.Contents(); err == nil {
		t.Error("Contents decoded a scrambled member")
	}
}
