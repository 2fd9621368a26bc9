package input

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/warplink/warplink/internal/diag"
)

// batchFiles writes files of the sizes that matter to a ring (empty, one
// byte, just under, at and over its first read, several reads long) and
// returns their paths with the contents expected, plus paths that cannot
// be read (missing, a directory, a NUL in the name).
func batchFiles(t *testing.T) (paths []string, want map[string][]byte) {
	dir := t.TempDir()
	want = map[string][]byte{}
	for i, n := range []int{0, 1, 52, 4095, 16<<10 - 1, 16 << 10, 16<<10 + 1, 100_000, 1 << 20} {
		b := make([]byte, n)
		for j := range b {
			b[j] = byte(i*31 + j*7)
		}
		p := filepath.Join(dir, fmt.Sprintf("f%d.bin", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		want[p] = b
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(dir, "missing.cubin"), sub, "bad\x00name", "")
	return paths, want
}

// checkBatch reads paths with r (nil: one at a time) and compares with
// want; a path not in want must fail.
func checkBatch(t *testing.T, r *Ring, mem *Memory, paths []string, want map[string][]byte) {
	t.Helper()
	files := make([]File, len(paths))
	for k := range files {
		files[k].Path = paths[k]
	}
	mem.ReadBatch(r, files)
	for k, f := range files {
		w, ok := want[f.Path]
		switch {
		case ok && f.Err != nil:
			t.Errorf("%q: %v", f.Path, f.Err)
		case ok && !bytes.Equal(f.Data, w):
			t.Errorf("%q: read %d bytes, want %d (or different contents)", f.Path, len(f.Data), len(w))
		case !ok && f.Err == nil:
			t.Errorf("%q: read %d bytes, want an error", f.Path, len(f.Data))
		}
		// (LoadFile hands the buffer on; these contents are no cubin, so
		// only the failure to read can be checked.)
		var bag diag.Bag
		if _, err := LoadFile(&files[k], Target{SM: 90}, &bag, k, nil, mem); !ok && err == nil {
			t.Errorf("%q: LoadFile succeeded", f.Path)
		}
	}
}

func TestReadBatch(t *testing.T) {
	paths, want := batchFiles(t)
	var wantErrs []string
	for _, p := range paths {
		if _, err := ReadFile(p); err != nil {
			wantErrs = append(wantErrs, p)
		} else if b, _ := ReadFile(p); !bytes.Equal(b, want[p]) {
			t.Fatalf("ReadFile %q differs", p)
		}
	}
	if len(wantErrs) != 4 {
		t.Fatalf("ReadFile failed on %q, want the last four", wantErrs)
	}
	r := NewRing()
	if r == nil {
		t.Log("no io_uring here: only the one-at-a-time path is tested")
	}
	defer r.Close()
	for _, mem := range []*Memory{{}, {Keep: func(n int) []byte { return make([]byte, n) }}} {
		checkBatch(t, nil, mem, paths, want)
		if r != nil {
			// Twice: the buffers and the ring are reused.
			checkBatch(t, r, mem, paths, want)
			checkBatch(t, r, mem, paths, want)
			if ringBroken(r) {
				t.Fatal("the ring broke")
			}
		}
	}
}
