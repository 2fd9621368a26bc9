package zstd

import (
	"bytes"
	"sync"
)

var (
	textOnce  sync.Once
	textBytes []byte
)

// textData returns about 600 kB of word-like text from a fixed
// linear-congruential sequence: it stands in for the Go tree's
// Isaac.Newton-Opticks.txt (not copied: large), with repeated words
// and lines so that zstd finds matches at all distances.
func textData() []byte {
	textOnce.Do(func() {
		words := []string{"the", "light", "of", "rays", "refracted", "glass", "prism",
			"colours", "which", "is", "and", "in", "by", "experiment", "reflexion",
			"are", "that", "to", "with", "bodies", "image", "red", "violet", "lens"}
		var b bytes.Buffer
		x := uint32(1)
		for b.Len() < 600<<10 {
			x = x*1664525 + 1013904223
			b.WriteString(words[(x>>16)%uint32(len(words))])
			switch (x >> 8) % 13 {
			case 0:
				b.WriteString(".\n")
			case 1:
				b.WriteString(", ")
			default:
				b.WriteByte(' ')
			}
		}
		textBytes = b.Bytes()
	})
	return textBytes
}
