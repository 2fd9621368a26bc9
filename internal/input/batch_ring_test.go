//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package input

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// ringBroken reports whether the kernel stopped serving r.
func ringBroken(r *Ring) bool { return r.broken }

// TestReadBatchPipe reads a named pipe whose writer sends the contents in
// pieces: short reads must not be taken for the end of the file. With Keep
// the ring reads it, and must wait for what it cannot complete at once
// (the open, until the writer comes; each read, until data does).
func TestReadBatchPipe(t *testing.T) {
	r := NewRing()
	if r == nil {
		t.Skip("no io_uring here")
	}
	defer r.Close()
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	keep := func(n int) []byte { return make([]byte, n) }
	for _, c := range []struct {
		size int
		mem  *Memory
	}{{10, &Memory{}}, {40_000, &Memory{}}, {10, &Memory{Keep: keep}}, {40_000, &Memory{Keep: keep}}} {
		size := c.size
		p := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
		want := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		done := make(chan error, 1)
		go func() {
			w, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				done <- err
				return
			}
			for b := want; len(b) > 0; {
				n := min(len(b), 3000)
				if _, err := w.Write(b[:n]); err != nil {
					done <- err
					return
				}
				b = b[n:]
				time.Sleep(2 * time.Millisecond)
			}
			done <- w.Close()
		}()
		checkBatch(t, r, c.mem, []string{p}, map[string][]byte{p: want})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// TestReadBatchRingFails makes the ring fail at each of its rounds: the
// files are read all the same (again, file by file, or complete when only
// the closing failed) and the ring is not used again.
func TestReadBatchRingFails(t *testing.T) {
	paths, want := batchFiles(t)
	for round := 1; round <= 4; round++ {
		r := NewRing()
		if r == nil {
			t.Skip("no io_uring here")
		}
		r.failAt = round
		checkBatch(t, r, &Memory{Keep: func(n int) []byte { return make([]byte, n) }}, paths, want)
		if !r.broken {
			t.Errorf("round %d: the ring is not marked broken", round)
		}
		r.Release()
	}
}

// TestReadBatchFewDescriptors reads a batch with almost no file
// descriptors to spare: what the ring cannot open is read again file by
// file, which closes each before the next.
func TestReadBatchFewDescriptors(t *testing.T) {
	r := NewRing()
	if r == nil {
		t.Skip("no io_uring here")
	}
	defer r.Close()
	dir := t.TempDir()
	var paths []string
	want := map[string][]byte{}
	for i := range ringEntries / 2 {
		p := filepath.Join(dir, fmt.Sprintf("f%d", i))
		b := []byte(fmt.Sprintf("file %d", i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		want[p] = b
	}
	open, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = uint64(len(open) + 4)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	checkBatch(t, r, &Memory{Keep: func(n int) []byte { return make([]byte, n) }}, paths, want)
}
