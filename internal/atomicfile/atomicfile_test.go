package atomicfile

import (
	"bufio"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// holds fails the test unless the file at path holds want.
func holds(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Fatalf("%s holds %q (%v), want %q", path, got, err, want)
	}
}

// leaves fails the test unless dir holds n names.
func leaves(t *testing.T, dir string, n int) {
	t.Helper()
	if names := entries(t, dir); len(names) != n {
		t.Fatalf("%d names left in %s, want %d: %v", len(names), dir, n, names)
	}
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestCommitReplaces(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cubin")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("new")); err != nil {
		t.Fatal(err)
	}
	holds(t, out, "old")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	holds(t, out, "new")
	if err := f.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	leaves(t, dir, 1)
	if f.Commit() == nil {
		t.Fatal("second Commit succeeded")
	}
}

func TestAbortKeepsTarget(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cubin")
	os.WriteFile(out, []byte("old"), 0o644)
	r := NewRegistry()
	f, err := r.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("partial"))
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	holds(t, out, "old")
	leaves(t, dir, 1)
	if len(r.pending) != 0 {
		t.Fatal("aborted file still registered")
	}
}

func TestAbortNoTarget(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	f.Abort()
	leaves(t, dir, 0)
}

// TestRemovePending checks that RemovePending removes the named temporary
// files of files not yet committed, whose Commit then fails, and leaves
// committed ones alone.
func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := NewRegistry()
	a, _ := create(filepath.Join(dir, "a"), r, false, false)
	b, _ := create(filepath.Join(dir, "b"), r, false, false)
	if a.tmp == "" || b.tmp == "" {
		t.Fatal("no named temporary files")
	}
	b.Write([]byte("new"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	r.RemovePending()
	if names := entries(t, dir); len(names) != 2 || names[0] != "a" || names[1] != "b" {
		t.Fatalf("after RemovePending: %v", names)
	}
	if a.Commit() == nil {
		t.Fatal("Commit after RemovePending succeeded")
	}
	holds(t, filepath.Join(dir, "a"), "old")
	holds(t, filepath.Join(dir, "b"), "new")
}

// TestUnnamed checks, where there are unnamed files (Linux), that a new
// target is written with no name at all until Commit, gets the
// permissions a created file gets, and that Abort leaves nothing; and that
// such a file needs no signal handler.
func TestUnnamed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unnamed files are Linux's")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cubin")
	r := NewRegistry()
	stop := r.HandleSignals(syscall.SIGTERM)
	defer stop()
	f, err := r.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if !f.unnamed {
		t.Skip("no O_TMPFILE on this file system")
	}
	f.Write([]byte("new"))
	leaves(t, dir, 0)
	if r.stopper != nil {
		t.Error("a signal handler was installed for an unnamed file")
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	holds(t, out, "new")
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(plain, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Stat(plain)
	if got, _ := os.Stat(out); got.Mode() != want.Mode() {
		t.Errorf("mode %v, want %v (as os.WriteFile with 0666)", got.Mode(), want.Mode())
	}
	g, err := r.Create(filepath.Join(dir, "aborted"))
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("partial"))
	g.Abort()
	if names := entries(t, dir); len(names) != 1 || names[0] != "out.cubin" {
		t.Fatalf("after Abort: %v", names)
	}
}

// TestUnnamedTargetAppears checks that a target created by someone else
// between Create and Commit is replaced, as an existing one would be, and
// that no temporary name is left behind.
func TestUnnamedTargetAppears(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cubin")
	f, err := NewRegistry().Create(out)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := os.WriteFile(out, []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	holds(t, out, "new")
	leaves(t, dir, 1)
}

// TestIgnoreSignalsAtCommit checks that, where there are unnamed files, an
// existing target gets one too, that its Commit under
// IgnoreSignalsAtCommit replaces it with no handler installed and no
// temporary left, and that the signals are ignored from then on. (It
// leaves SIGUSR1 ignored in the test binary.)
func TestIgnoreSignalsAtCommit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("unnamed files are Linux's")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cubin")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	stop := r.HandleSignals(syscall.SIGUSR1)
	defer stop()
	r.IgnoreSignalsAtCommit()
	f, err := r.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if !f.unnamed {
		t.Skip("no O_TMPFILE on this file system")
	}
	f.Write([]byte("new"))
	holds(t, out, "old")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	holds(t, out, "new")
	leaves(t, dir, 1)
	if r.stopper != nil {
		t.Error("a signal handler was installed")
	}
	if !signal.Ignored(syscall.SIGUSR1) {
		t.Error("SIGUSR1 not ignored after the commit")
	}
}

// TestTargetBecomesFolder checks that a Commit over a target that has
// become a folder since Create fails, and leaves the folder and no
// temporary file.
func TestTargetBecomesFolder(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cubin")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := NewRegistry().Create(out)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if f.Commit() == nil {
		t.Fatal("Commit over a folder succeeded")
	}
	if st, err := os.Stat(out); err != nil || !st.IsDir() {
		t.Fatalf("the folder is gone: %v", err)
	}
	leaves(t, dir, 1)
}

// TestUnnamedCopied checks the way out when an unnamed file cannot be
// linked (no /proc): its bytes are copied into a named temporary file,
// renamed into place. (A file removed after it was opened cannot be
// linked either, which stands in for it here.)
func TestUnnamedCopied(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(t.TempDir(), "gone")
	h, err := os.Create(gone)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(gone)
	out := filepath.Join(dir, "out.cubin")
	f := &File{File: h, path: out, unnamed: true, reg: NewRegistry()}
	f.Write([]byte("copied bytes"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	holds(t, out, "copied bytes")
	leaves(t, dir, 1)
	if len(f.reg.pending) != 0 {
		t.Fatal("temporary file still registered")
	}
}

func TestMissingDir(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "out")); err == nil {
		t.Fatal("Create in a missing folder succeeded")
	}
}

// TestReserve reserves blocks for new and replacing outputs (unnamed and
// named temporary files): the file keeps the size of what was written,
// holds it, and where Reserve reported the blocks reserved, has them
// (st_blocks) before a byte is written. A target written in place
// (/dev/null) gets no reservation.
func TestReserve(t *testing.T) {
	const n = 1 << 20
	data := make([]byte, 100)
	for i := range data {
		data[i] = byte(i)
	}
	dir := t.TempDir()
	for _, existing := range []bool{false, true} {
		path := filepath.Join(dir, "out")
		if existing {
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Reserve(n) {
			if size, blocks, ok := sizeAndBlocks(t, f); ok && (size != 0 || blocks < n) {
				t.Errorf("existing %v: reserved, but size %d and %d bytes of blocks (want 0 and %d)", existing, size, blocks, n)
			}
		}
		if _, err := f.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		holds(t, path, string(data))
		leaves(t, dir, 1)
	}
	if runtime.GOOS != "windows" {
		f, err := Create(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		if f.Reserve(n) {
			t.Error("/dev/null: reserved")
		}
		f.Commit()
	}
	if f, err := Create(filepath.Join(dir, "zero")); err == nil {
		if f.Reserve(0) {
			t.Error("nothing to reserve: reserved")
		}
		f.Abort()
	}
}

func TestDevNull(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix only")
	}
	f, err := Create(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("x"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode().IsRegular() {
		t.Fatal("/dev/null was replaced")
	}
}

// TestSignal runs a child that starts writing a named temporary file over
// an existing file (and the handler installed with it), or an unnamed one
// where the system allows over an existing file or a new one (and no
// handler), and waits; SIGTERM must leave the old file or none, and no
// temporary behind, and the child must die of the signal.
func TestSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix only")
	}
	if out := os.Getenv("ATOMICFILE_CHILD"); out != "" {
		r := NewRegistry()
		r.HandleSignals(syscall.SIGINT, syscall.SIGTERM)
		f, err := create(out, r, os.Getenv("ATOMICFILE_NAMED") == "", false)
		if err != nil {
			os.Exit(3)
		}
		f.Write([]byte("partial"))
		os.Stdout.WriteString("ready\n")
		// Asleep, not blocked for good: with no signal handler (an
		// unnamed output registers none) a bare select would be a
		// deadlock the runtime ends with exit status 2 if the signal
		// comes late.
		time.Sleep(time.Hour)
	}
	for _, tc := range []struct{ existing, named bool }{{true, true}, {true, false}, {false, false}} {
		existing := tc.existing
		dir := t.TempDir()
		out := filepath.Join(dir, "out.cubin")
		if existing {
			os.WriteFile(out, []byte("old"), 0o644)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignal$")
		cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+out)
		if tc.named {
			cmd.Env = append(cmd.Env, "ATOMICFILE_NAMED=1")
		}
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "ready\n" {
			cmd.Process.Kill()
			t.Fatalf("child: %q %v", line, err)
		}
		if n := len(entries(t, dir)); tc.named && n != 2 {
			t.Fatalf("child should have a temporary file: %d entries", n)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		err = cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("child exit: %v", err)
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("child did not die of SIGTERM: %v", err)
		}
		if existing {
			leaves(t, dir, 1)
			holds(t, out, "old")
		} else {
			leaves(t, dir, 0)
		}
	}
}

func TestCreateThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.cubin")
	link := filepath.Join(dir, "link.cubin")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.cubin", link); err != nil {
		t.Fatal(err)
	}
	f, err := Create(link)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st, err)
	}
	holds(t, real, "new")
}
