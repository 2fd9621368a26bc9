//go:build linux && amd64

package jit

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// zygotePTXAS is a fake ptxas that warns about its first argument and
// logs its start before it opens its input, then logs a compile and
// echoes the input, failing on a line "fail" as ptxas does and killed on
// a line "crash" (by a child: $$ is the template's pid).
const zygotePTXAS = `[ "$1" = --version ] && { echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0; }
echo "ptxas warning : early $1" >&2
echo $$ >>@LOG@.pid
echo s >>@LOG@
while IFS= read -r l; do
  [ "$l" = fail ] && { echo "ptxas $3, line 1; error   : bad" >&2; exit 3; }
  [ "$l" = crash ] && sh -c 'kill -SEGV $PPID'
  printf '%s\n' "$l"
done </dev/fd/3
echo c >>@LOG@`

// TestZygote: compiles forked from the zygote give what a ptxas of their
// own gives (cubin, messages with those written before the input was
// opened, exit status), the setup before the input runs once an argument
// list, and Close ends the templates.
func TestZygote(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	ptxas := script(t, dir, "ptxas", strings.ReplaceAll(zygotePTXAS, "@LOG@", log))
	runtime.LockOSThread() // (the probe traces: one thread)
	tp := startTemplate(ptxas, []string{"-arch=sm_86", "-c"}, templateTimeout)
	if tp.err == nil {
		end(tp.pid, nil)
	}
	runtime.UnlockOSThread()
	if tp.err != nil {
		t.Skipf("no zygote here: %v", tp.err)
	}
	os.Remove(log)
	os.Remove(log + ".pid")
	c := New(Options{Arch: 86, PTXAS: ptxas})
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ptx := fmt.Sprintf(".version 7.8\n// %d\n", i)
			cubin, msgs, err := c.PTX("in.ptx", true, []byte(ptx), nil)
			if err != nil || string(cubin) != ptx || msgs != "ptxas warning : early -arch=sm_86\n" {
				t.Errorf("compile %d: %q %q %v", i, cubin, msgs, err)
			}
		}()
	}
	wg.Wait()
	cubin, msgs, err := c.PTX("bad.ptx", true, []byte("fail\n"), nil)
	if want := "ptxas warning : early -arch=sm_86\nptxas application ptx input, line 1; error   : bad\n"; cubin != nil || msgs != want || err == nil || err.Error() != "ptxas: exit status 3" {
		t.Errorf("failing compile: %q %q %v", cubin, msgs, err)
	}
	if cubin, _, err := c.PTX("crash.ptx", true, []byte("crash\n"), nil); cubin != nil || err == nil || err.Error() != "ptxas: signal: segmentation fault" {
		t.Errorf("crashing compile: %q %v", cubin, err)
	}
	// A member's options make another argument list: a second template.
	for i := range 2 {
		ptx := fmt.Sprintf(".version 7.8\n// lineinfo %d\n", i)
		if cubin, _, err := c.PTX("li.ptx", true, []byte(ptx), []string{"-lineinfo"}); err != nil || string(cubin) != ptx {
			t.Errorf("compile with -lineinfo %d: %q %v", i, cubin, err)
		}
	}
	b, _ := os.ReadFile(log)
	if s, cs := strings.Count(string(b), "s"), strings.Count(string(b), "c"); s != 2 || cs != n+2 {
		t.Errorf("%d starts and %d compiles, want 2 and %d", s, cs, n+2)
	}
	c.Close()
	pids, _ := os.ReadFile(log + ".pid")
	if f := strings.Fields(string(pids)); len(f) != 2 {
		t.Errorf("templates %q, want 2", f)
	}
	for _, f := range strings.Fields(string(pids)) {
		pid, _ := strconv.Atoi(f)
		if pid == 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			t.Errorf("template %d still there after Close", pid)
		}
	}
}

// TestZygoteFallback: a ptxas that does not open its input itself (here
// a wrapper script's child does) runs as processes of its own.
func TestZygoteFallback(t *testing.T) {
	dir := t.TempDir()
	ptxas := script(t, dir, "ptxas", `cat /dev/fd/3`)
	c := New(Options{Arch: 86, PTXAS: ptxas})
	defer c.Close()
	for i := range 3 {
		ptx := fmt.Sprintf("ptx %d\n", i)
		if cubin, _, err := c.PTX("in.ptx", true, []byte(ptx), nil); err != nil || string(cubin) != ptx {
			t.Errorf("compile %d: %q %v", i, cubin, err)
		}
	}
}

// TestZygoteTimeout: a ptxas whose setup blocks (here its first run,
// on a FIFO no one writes) is killed after the zygote's timeout and the
// compile runs as a process of its own.
func TestZygoteTimeout(t *testing.T) {
	dir := t.TempDir()
	fifo, once := filepath.Join(dir, "fifo"), filepath.Join(dir, "once")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	ptxas := script(t, dir, "ptxas", `[ "$1" = --version ] && { echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0; }
[ -e `+once+` ] || { : >`+once+`; read x <`+fifo+`; }
cat /dev/fd/3`)
	c := New(Options{Arch: 86, PTXAS: ptxas})
	c.find()
	c.zyg.timeout = 200 * time.Millisecond
	defer c.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if cubin, _, err := c.PTX("in.ptx", true, []byte("ptx\n"), nil); err != nil || string(cubin) != "ptx\n" {
			t.Errorf("compile: %q %v", cubin, err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the compile waits on the blocked template")
	}
}
