package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestOptionsFileRandomAgainstNvlink gives nvlink and warplink random
// options files of "-zz" and up to ten characters of quotes, backslashes,
// white space and letters: nvlink names the first word it read in its
// "Unknown option" message, or refuses the file (a stray quote or final
// backslash); warplink's message must be the same. (It found the blanks
// a word loses at its ends and the final backslash.)
func TestOptionsFileRandomAgainstNvlink(t *testing.T) {
	needNvlink(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "optf")
	r := rand.New(rand.NewPCG(67, 1))
	const alphabet = "ab\"\\ \t\n'\r="
	for i := range 400 {
		b := []byte("-zz")
		for range 1 + r.IntN(10) {
			b = append(b, alphabet[r.IntN(len(alphabet))])
		}
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, want, _ := nvlinkRun(t, dir, "-optf", f)
		_, got, _ := parse([]string{"-optf", f}, os.ReadFile)
		if got != want {
			t.Errorf("case %d, %q: warplink %q, nvlink %q", i, b, got, want)
		}
	}
}
