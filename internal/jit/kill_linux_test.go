//go:build linux

package jit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killPTXAS is a fake ptxas that logs its pid before it opens its input
// (the template's, or a process of its own's) and after (a compile's;
// not $$, which a fork of the template shares with it), then sleeps: a compile under way for a minute.
const killPTXAS = `[ "$1" = --version ] && { echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0; }
read pid rest </proc/self/stat
echo s $pid >>@DIR@/pids
read l </dev/fd/3
read pid rest </proc/self/stat
echo c $pid >>@DIR@/pids
exec sleep 60`

// killHelperEnv names, in a test process started by TestKilledMidCompile,
// the folder of the fake ptxas; the process compiles killCompiles PTX
// inputs at once and waits to be killed.
const killHelperEnv = "WARPLINK_JIT_KILL_HELPER"

// killCompiles is the number of compiles under way when the process is
// killed (at most one per CPU run at once).
func killCompiles() int { return min(3, runtime.NumCPU()) }

// TestKilledMidCompile: a process killed while its compiles run, by
// SIGKILL or SIGTERM, with the zygote or without, leaves no ptxas (nor
// template) running.
func TestKilledMidCompile(t *testing.T) {
	if dir := os.Getenv(killHelperEnv); dir != "" {
		killHelper(dir)
		return
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		for _, noZygote := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/nozygote=%v", sig, noZygote), func(t *testing.T) {
				killMidCompile(t, sig, noZygote)
			})
		}
	}
}

func killMidCompile(t *testing.T, sig syscall.Signal, noZygote bool) {
	dir := t.TempDir()
	script(t, dir, "ptxas", strings.ReplaceAll(killPTXAS, "@DIR@", dir))
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledMidCompile$")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+dir, fmt.Sprintf("WARPLINK_ZYGOTE=%v", map[bool]int{false: 1, true: 0}[noZygote]))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The compiles under way: each has logged "c pid" (each ptxas, the
	// template too, "s pid" before).
	var pids []int
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(dir, "pids"))
		f := strings.Fields(string(b))
		pids = pids[:0]
		compiles := 0
		for i := 0; i+1 < len(f); i += 2 {
			p, _ := strconv.Atoi(f[i+1])
			if !slices.Contains(pids, p) {
				pids = append(pids, p)
			}
			if f[i] == "c" {
				compiles++
			}
		}
		if compiles == killCompiles() {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the compiles did not start: %q", b)
		}
	}
	cmd.Process.Signal(sig)
	cmd.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var alive []int
		for _, p := range pids {
			if running(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range alive {
				syscall.Kill(p, syscall.SIGKILL)
			}
			t.Fatalf("ptxas processes %v still running after their link was killed", alive)
		}
	}
}

// running reports whether pid is a process not yet ended (a zombie, whose
// parent is gone, has ended).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// killHelper is the process TestKilledMidCompile kills.
func killHelper(dir string) {
	c := New(Options{Arch: 86, PTXAS: filepath.Join(dir, "ptxas"), NoZygote: os.Getenv("WARPLINK_ZYGOTE") == "0"})
	for i := range killCompiles() {
		go c.PTX(fmt.Sprintf("in%d.ptx", i), true, []byte(fmt.Sprintf("// %d\n", i)), nil)
	}
	time.Sleep(time.Minute)
	os.Exit(1)
}
