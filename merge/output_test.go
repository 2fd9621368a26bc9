package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/linkflags"
)

// TestOutputPrepared checks the output prepared ahead (output.go): the
// file written over its zeros holds the written bytes alone, cut to
// their size, whether the zeros went past it or stopped short; a link
// that fails leaves nothing, the target as it was; a target written in
// place (a FIFO, which opening would block) is not opened ahead.
func TestOutputPrepared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := bytes.Repeat([]byte("warplink"), 3<<20/8) // 3 MiB
	for _, c := range []struct {
		name     string
		prepared uint64
	}{
		{"zeros past the file", 6 << 20},
		{"zeros short of it", prepareFrom},
		{"not prepared", 1 << 20},
	} {
		path := filepath.Join(dir, "out.cubin")
		o := &outputFile{opts: &Options{Flags: linkflags.Flags{Output: path}, Hooks: Hooks{Files: atomicfile.NewRegistry()}}, diags: &diag.Bag{}}
		o.prepare(c.prepared)
		w, err := o.open(uint64(len(data)))
		if err != nil {
			t.Fatalf("%s: open: %v", c.name, err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := o.close(true); err != nil {
			t.Fatalf("%s: close: %v", c.name, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Errorf("%s: the file holds %d bytes, not the %d written", c.name, len(got), len(data))
		}
	}
	// A failed link: the earlier output stays, nothing else is left.
	path := filepath.Join(dir, "out.cubin")
	o := &outputFile{opts: &Options{Flags: linkflags.Flags{Output: path}, Hooks: Hooks{Files: atomicfile.NewRegistry()}}, diags: &diag.Bag{}}
	o.prepare(8 << 20)
	if o.file == nil {
		t.Fatal("not prepared")
	}
	o.close(false)
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Error("a failed link changed the earlier output")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files left in the folder, want the output alone", len(ents))
	}
	if runtime.GOOS != "linux" {
		return
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	o = &outputFile{opts: &Options{Flags: linkflags.Flags{Output: fifo}}, diags: &diag.Bag{}}
	o.prepare(8 << 20) // (would block, opening a FIFO no one reads)
	if o.file != nil || o.done != nil {
		t.Error("a FIFO was opened ahead")
	}
}
