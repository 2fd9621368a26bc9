package elf

import (
	"crypto/sha256"
	"math/rand/v2"
	"testing"
)

// TestSHA256 checks sha256Sum against crypto/sha256 at every length
// around the block and padding boundaries, and on a larger input.
func TestSHA256(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 1<<16+7)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for n := 0; n <= 200; n++ {
		if got, want := sha256Sum(buf[:n]), sha256.Sum256(buf[:n]); got != want {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
	}
	if got, want := sha256Sum(buf), sha256.Sum256(buf); got != want {
		t.Errorf("%d bytes: %x, want %x", len(buf), got, want)
	}
}
