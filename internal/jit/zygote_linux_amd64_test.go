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
// opened, exit status), the setup before the input runs once, and Close
// ends the template.
func TestZygote(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	ptxas := script(t, dir, "ptxas", strings.ReplaceAll(zygotePTXAS, "@LOG@", log))
	runtime.LockOSThread() // (the probe traces: one thread)
	tp := startTemplate(ptxas, []string{"-arch=sm_86", "-c"})
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
	b, _ := os.ReadFile(log)
	if s, cs := strings.Count(string(b), "s"), strings.Count(string(b), "c"); s != 1 || cs != n {
		t.Errorf("%d starts and %d compiles, want 1 and %d", s, cs, n)
	}
	c.Close()
	pids, _ := os.ReadFile(log + ".pid")
	pid, _ := strconv.Atoi(strings.TrimSpace(string(pids)))
	if pid == 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
		t.Errorf("template %d still there after Close", pid)
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
