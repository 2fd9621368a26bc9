package e2e

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/merge"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current outputs")

// TestGoldenDumps compares the readelf-like dump (elf.Dump) of every corpus
// link with testdata/golden/<prog>.dump. The goldens were written by
// `go test ./internal/e2e -run Golden -update` from outputs that
// TestCorpusHostObjects proves equivalent to nvlink's (and identical for
// xcall, debug, recursion); they pin the exact layout so any change in order
// or bytes shows up as a readable diff.
func TestGoldenDumps(t *testing.T) {
	t.Parallel()
	golden, _ := filepath.Abs("../../testdata/golden")
	names, dirs := corpusPrograms(t, corpusDir)
	for k, name := range names {
		if name == "archive" {
			continue
		}
		dir := dirs[k]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out.cubin")
			opts := linkArgs(t, dir, "link_dc.args", out)
			var stderr bytes.Buffer
			if rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink"); rc != 0 {
				t.Fatalf("exit %d: %s", rc, stderr.String())
			}
			b, _ := os.ReadFile(out)
			f, err := elf.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := elf.Dump(&got, f); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(golden, name+".dump")
			if *update {
				os.MkdirAll(golden, 0o755)
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("no golden (run with -update): %v", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				gl, wl := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
				for i := 0; i < len(gl) && i < len(wl); i++ {
					if !bytes.Equal(gl[i], wl[i]) {
						t.Fatalf("dump differs from %s at line %d:\n got %s\nwant %s", path, i+1, gl[i], wl[i])
					}
				}
				t.Fatalf("dump differs from %s in length (%d vs %d lines)", path, len(gl), len(wl))
			}
		})
	}
}
