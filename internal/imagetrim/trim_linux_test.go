//go:build linux && (amd64 || arm64)

package imagetrim

import (
	"bufio"
	"encoding/binary"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestBounds checks that the pclntab's pages lie in a read-only mapping
// of the executable itself.
func TestBounds(t *testing.T) {
	lo, hi := pageBounds()
	if lo >= hi || lo%uintptr(os.Getpagesize()) != 0 {
		t.Fatalf("pclntab pages %#x-%#x", lo, hi)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		start, end, _ := strings.Cut(fs[0], "-")
		s, _ := strconv.ParseUint(start, 16, 64)
		e, _ := strconv.ParseUint(end, 16, 64)
		if uintptr(s) <= lo && hi <= uintptr(e) {
			if fs[1] != "r--p" || len(fs) < 6 || fs[5] != exe {
				t.Fatalf("pclntab pages %#x-%#x in %q", lo, hi, sc.Text())
			}
			return
		}
	}
	t.Fatalf("pclntab pages %#x-%#x in no single mapping", lo, hi)
}

// TestRelease checks that Release leaves none of the pclntab's pages
// mapped, and that the runtime still reads the tables afterwards: a
// traceback, a stack's growth and a collection.
func TestRelease(t *testing.T) {
	lo, hi := pageBounds()
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skip(err)
	}
	defer pm.Close()
	page := uintptr(os.Getpagesize())
	buf := make([]byte, (hi-lo)/page*8)
	present := func() int {
		n, err := syscall.Pread(int(pm.Fd()), buf, int64(lo/page*8))
		if err != nil || n != len(buf) {
			t.Fatalf("pagemap: %d, %v", n, err)
		}
		c := 0
		for i := 0; i < n; i += 8 {
			if binary.LittleEndian.Uint64(buf[i:])>>63 != 0 {
				c++
			}
		}
		return c
	}
	// (A signal the runtime handles between the two, a preemption,
	// reads the tables: another try then.)
	n := -1
	for try := 0; try < 3 && n != 0; try++ {
		Release()
		n = present()
	}
	if n != 0 {
		t.Errorf("%d pages of the pclntab mapped after Release", n)
	}
	var grow func(int) int
	grow = func(d int) int {
		var pad [256]byte
		if d == 0 {
			pcs := make([]uintptr, 64)
			fr, _ := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)]).Next()
			if !strings.HasSuffix(fr.Function, "TestRelease.func2") {
				t.Errorf("traceback after Release: %q", fr.Function)
			}
			return int(pad[d])
		}
		return grow(d-1) + int(pad[d%len(pad)])
	}
	grow(200)
	runtime.GC()
	if present() == 0 {
		t.Errorf("no page of the pclntab mapped back after a traceback")
	}
}
