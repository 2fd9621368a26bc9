package fatbin

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLZ4RandomAgainstNvlink gives nvlink 11.8 random LZ4 encodings of
// xcall's c.cubin (literal runs and matches of random lengths, the last
// token's match length at times set, the end of the block anywhere), each
// the one member of a .fatbin linked with xcall's a.cubin and b.cubin:
// DecodeLZ4Block decodes exactly those nvlink links (the others nvlink
// reports "Uncompress failed").
func TestLZ4RandomAgainstNvlink(t *testing.T) {
	if _, err := exec.LookPath("nvlink"); err != nil {
		t.Skip("nvlink not found")
	}
	x := filepath.Join(corpus, "xcall")
	c, err := os.ReadFile(filepath.Join(x, "c.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(c)
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(67, 5))
	length := func(b []byte, k int) []byte {
		for k -= 15; k >= 255; k -= 255 {
			b = append(b, 255)
		}
		return append(b, byte(k))
	}
	agree, refused := 0, 0
	for round := range 80 {
		var block []byte
		pos := 0
		endBias := r.IntN(40)
		for {
			lit := r.IntN(30)
			if n-pos < endBias+r.IntN(20) {
				lit = n - pos
			}
			lit = min(lit, n-pos)
			var mpos, off, ml int
			for {
				mpos = pos + lit
				if mpos == n {
					break
				}
				for o := 1; o <= min(mpos, 1000) && off == 0; o++ {
					k := 0
					for mpos+k < n && c[mpos+k] == c[mpos-o+k] && k < 100 {
						k++
					}
					if k >= 4 {
						off, ml = o, 4+r.IntN(k-3)
					}
				}
				if off != 0 {
					break
				}
				lit++
			}
			if mpos == n || off == 0 {
				if mpos == n {
					nib := byte(0)
					if r.IntN(5) == 0 {
						nib = byte(r.IntN(16))
					}
					tok := byte(min(lit, 15))<<4 | nib
					block = append(block, tok)
					if lit >= 15 {
						block = length(block, lit)
					}
					block = append(block, c[pos:pos+lit]...)
					break
				}
			}
			tok := byte(min(lit, 15))<<4 | byte(min(ml-4, 15))
			block = append(block, tok)
			if lit >= 15 {
				block = length(block, lit)
			}
			block = append(block, c[pos:pos+lit]...)
			block = append(block, byte(off), byte(off>>8))
			if ml-4 >= 15 {
				block = length(block, ml-4)
			}
			pos = mpos + ml
		}
		got, err := DecodeLZ4Block(block, n)
		if err == nil && !bytes.Equal(got, c) {
			t.Fatalf("round %d: decoded wrong bytes", round)
		}
		fb := filepath.Join(dir, "c.fatbin")
		if err := os.WriteFile(fb, container(KindELF, 90, Flag64Bit|FlagLinux|FlagCompressLZ4, block, n), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("nvlink", "-arch=sm_90", filepath.Join(x, "a.cubin"), filepath.Join(x, "b.cubin"), fb, "-o", filepath.Join(dir, "o.cubin"))
		out, runErr := cmd.CombinedOutput()
		nvOK := runErr == nil
		if !nvOK && !strings.Contains(string(out), "Uncompress failed") {
			t.Fatalf("round %d: nvlink failed otherwise: %s", round, out)
		}
		if nvOK != (err == nil) {
			t.Errorf("round %d (%d bytes): nvlink ok %v (%q), DecodeLZ4Block %v", round, len(block), nvOK, out, err)
		} else {
			agree++
		}
		if !nvOK {
			refused++
		}
	}
	if refused == 0 || refused == agree {
		t.Errorf("%d of %d blocks refused: the encodings do not test both ways", refused, agree)
	}
}
