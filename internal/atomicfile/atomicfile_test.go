package atomicfile

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

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
	if got, _ := os.ReadFile(out); string(got) != "old" {
		t.Fatalf("target changed before Commit: %q", got)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != "new" {
		t.Fatalf("after Commit: %q", got)
	}
	if err := f.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("left behind: %v", names)
	}
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
	if got, _ := os.ReadFile(out); string(got) != "old" {
		t.Fatalf("target changed: %q", got)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("left behind: %v", names)
	}
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
	if names := entries(t, dir); len(names) != 0 {
		t.Fatalf("left behind: %v", names)
	}
}

func TestRemovePending(t *testing.T) {
	dir := t.TempDir()
	r := NewRegistry()
	a, _ := r.Create(filepath.Join(dir, "a"))
	b, _ := r.Create(filepath.Join(dir, "b"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	r.RemovePending()
	if names := entries(t, dir); len(names) != 1 || names[0] != "b" {
		t.Fatalf("after RemovePending: %v", names)
	}
	if a.Commit() == nil {
		t.Fatal("Commit after RemovePending succeeded")
	}
}

func TestMissingDir(t *testing.T) {
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "out")); err == nil {
		t.Fatal("Create in a missing folder succeeded")
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

// TestSignal runs a child that starts writing over an existing file and
// waits; SIGTERM must leave the old file and no temporary behind.
func TestSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix only")
	}
	if out := os.Getenv("ATOMICFILE_CHILD"); out != "" {
		r := NewRegistry()
		r.HandleSignals(syscall.SIGINT, syscall.SIGTERM)
		f, err := r.Create(out)
		if err != nil {
			os.Exit(3)
		}
		f.Write([]byte("partial"))
		os.Stdout.WriteString("ready\n")
		select {}
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out.cubin")
	os.WriteFile(out, []byte("old"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignal$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD="+out)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("child: %q %v", line, err)
	}
	if n := len(entries(t, dir)); n != 2 {
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
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("left behind: %v", names)
	}
	if got, _ := os.ReadFile(out); string(got) != "old" {
		t.Fatalf("target changed: %q", got)
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
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
}
