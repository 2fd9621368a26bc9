package hugemem

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

func TestAllocDisjointAndZeroed(t *testing.T) {
	var a Arena
	defer a.Free()
	sizes := []int{1, 7, 8, 4096, 3 << 20, 100, chunkSize + 5, 9}
	var bufs [][]byte
	for i, n := range sizes {
		b := a.Alloc(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("Alloc(%d): len %d cap %d", n, len(b), cap(b))
		}
		for _, c := range b {
			if c != 0 {
				t.Fatalf("Alloc(%d) not zeroed", n)
			}
		}
		for k := range b {
			b[k] = byte(i + 1)
		}
		bufs = append(bufs, b)
	}
	for i, b := range bufs {
		for _, c := range b {
			if c != byte(i+1) {
				t.Fatalf("buffer %d overwritten by a later one", i)
			}
		}
	}
	if a.Alloc(0) != nil {
		t.Fatal("Alloc(0) should be nil")
	}
}

func TestNilArenaUsesMake(t *testing.T) {
	var a *Arena
	if b := a.Alloc(10); len(b) != 10 {
		t.Fatalf("len %d", len(b))
	}
	if b := a.AllocMapped(10); b != nil {
		t.Fatal("a nil Arena has no mappings: AllocMapped must return nil")
	}
	if a.OffHeap() {
		t.Fatal("a nil Arena is not off-heap")
	}
	a.Free()
}

func TestPlainArena(t *testing.T) {
	a := &Arena{plain: true} // as after a failed mapping
	if b := a.Alloc(10); len(b) != 10 {
		t.Fatalf("len %d", len(b))
	}
	if a.AllocMapped(10) != nil || a.OffHeap() {
		t.Fatal("a plain Arena must not claim mapped memory")
	}
}

func TestConcurrentAlloc(t *testing.T) {
	var a Arena
	defer a.Free()
	var wg sync.WaitGroup
	bufs := make([][]byte, 64)
	for g := range bufs {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			b := a.Alloc(1000 + g)
			for k := range b {
				b[k] = byte(g)
			}
			bufs[g] = b
		}(g)
	}
	wg.Wait()
	for g, b := range bufs {
		for _, c := range b {
			if c != byte(g) {
				t.Fatalf("buffer %d shared with another goroutine", g)
			}
		}
	}
}

// TestAdviseHeap checks that AdviseHeap refuses less than two huge pages,
// and that advising a range of the heap leaves the heap usable: memory
// allocated afterwards reads back what was written.
func TestAdviseHeap(t *testing.T) {
	if AdviseHeap(hugePage, true) {
		t.Error("advice given for a single huge page")
	}
	ok := AdviseHeap(16<<20, true)
	if runtime.GOOS == "linux" && unsafe.Sizeof(uintptr(0)) == 8 && !ok {
		t.Log("no advice given (madvise refused): transparent huge pages unavailable here")
	}
	var bufs [][]byte
	for i := range 64 {
		b := make([]byte, 256<<10)
		for j := range b {
			b[j] = byte(i + j)
		}
		bufs = append(bufs, b)
	}
	for i, b := range bufs {
		for j := 0; j < len(b); j += 4093 {
			if b[j] != byte(i+j) {
				t.Fatalf("buffer %d byte %d changed", i, j)
			}
		}
	}
}

// TestHeapMappingBelow checks how adviseBelow finds the heap's older
// memory in /proc/self/maps: the private anonymous read-write mapping that
// ends where the advised range begins, and nothing else.
func TestHeapMappingBelow(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) < 8 {
		t.Skip("64-bit addresses")
	}
	maps := []byte(`00400000-00543000 r-xp 00000000 fe:00 10290047                           /tmp/warplink
006dd000-02715000 rw-p 00000000 00:00 0 
2d70f0000000-2d70f2400000 ---p 00000000 00:00 0 
2d70f2400000-2d70f2a00000 rw-p 00000000 00:00 0 
2d70f2a00000-2d70f6c00000 rw-p 00000000 00:00 0 
7fd6d6960000-7fd6d6b00000 rw-p 00000000 00:00 0 
7fd6d6c00000-7fd6d7000000 rw-p 00000000 00:00 0                          [anon: Go: heap]
7fd6d7000000-7fd6d7400000 rw-p 00000000 00:00 0                          [anon: Go: page alloc]
7fd71d600000-7fd71d602000 r-xp 00000000 00:00 0                          [vdso]
7ffe7faa6000-7ffe7fac7000 rw-p 00000000 00:00 0                          [stack]
7ffe7fac7000-7ffe7fac8000 rw-p 00000000 00:00 0`)
	for _, c := range []struct {
		lo    uint64
		start uint64
		ok    bool
	}{
		{0x2d70f2a00000, 0x2d70f2400000, true}, // the heap below the range
		{0x2d70f6c00000, 0x2d70f2a00000, true},
		{0x2d70f2400000, 0, false},             // reserved, not mapped read-write
		{0x00543000, 0, false},                 // the program's text
		{0x7fd71d602000, 0, false},             // [vdso]
		{0x7ffe7fac7000, 0, false},             // [stack]
		{0x7ffe7fac8000, 0x7ffe7fac7000, true}, // the last line, with no newline
		{0x2d70f2500000, 0, false},             // inside a mapping, not at its end
	} {
		start, ok := heapMappingBelow(maps, uintptr(c.lo))
		if uint64(start) != c.start || ok != c.ok {
			t.Errorf("heapMappingBelow(%#x) = %#x, %v; want %#x, %v", c.lo, start, ok, c.start, c.ok)
		}
	}
	heapLo := uint64(0x2d70f2a00000)
	for _, bad := range []string{"", "\n\n", "zz-2d70f2a00000 rw-p 0 00:00 0", "2d70f2400000-2d70f2a00000", "12345678901234567-2d70f2a00000 rw-p 00000000 00:00 0"} {
		if start, ok := heapMappingBelow([]byte(bad), uintptr(heapLo)); ok {
			t.Errorf("heapMappingBelow(%q) = %#x, true; want not ok", bad, start)
		}
	}
}

// TestZeros checks the shared zeros: n zero bytes (len and cap n) from
// one mapping, nil past ZerosMax, for n <= 0 and for a nil Arena, and a
// write into them faults (where there are mappings) instead of changing
// them.
func TestZeros(t *testing.T) {
	var a Arena
	defer a.Free()
	z := a.Zeros(4096)
	if z == nil {
		if _, ok := mapZeros(ZerosMax); ok {
			t.Fatal("Zeros(4096) = nil where mappings work")
		}
		t.Skip("no read-only mappings here")
	}
	if len(z) != 4096 || cap(z) != 4096 {
		t.Fatalf("Zeros(4096): len %d cap %d", len(z), cap(z))
	}
	w := a.Zeros(ZerosMax)
	if len(w) != ZerosMax || &w[0] != &z[0] {
		t.Fatal("Zeros does not share one mapping")
	}
	for i, c := range w {
		if c != 0 {
			t.Fatalf("byte %d is %d", i, c)
		}
	}
	if a.Zeros(ZerosMax+1) != nil || a.Zeros(0) != nil || a.Zeros(-1) != nil || (*Arena)(nil).Zeros(8) != nil {
		t.Fatal("Zeros past its range, or of a nil Arena, is not nil")
	}
	faulted := func() (f bool) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { f = recover() != nil }()
		z[100] = 1
		return false
	}()
	if !faulted || z[100] != 0 {
		t.Fatalf("a write into the zeros did not fault (faulted %v, byte %d)", faulted, z[100])
	}
}

// TestAdvice: which bytes of an arena's first mapping are advised for huge
// pages (VmFlags "hg" in /proc/self/smaps): all by default, none below
// SmallFirst (AllSmall: none at all), none from HugeTo (rounded down to
// whole huge pages) on; a later
// mapping whole; the memory zeroed either way. Where this system gives
// no advice (a default arena's first byte is not advised) it skips.
func TestAdvice(t *testing.T) {
	var def Arena
	defer def.Free()
	d := def.Alloc(8 << 20)
	if !def.OffHeap() {
		t.Skip("no mappings on this system")
	}
	d[0] = 1
	if hg, ok := advised(uintptr(unsafe.Pointer(&d[0]))); !ok {
		t.Skip("no /proc/self/smaps")
	} else if !hg {
		t.Skip("no huge-page advice on this system")
	}
	for _, c := range []struct {
		name               string
		smallFirst, hugeTo int
		want               map[int]bool // offset -> advised
	}{
		{"default", 0, 0, map[int]bool{0: true, 8<<20 - 1: true}},
		{"SmallFirst", 4 << 20, 0, map[int]bool{0: false, 6 << 20: true}},
		{"AllSmall", AllSmall, 0, map[int]bool{0: false, 8<<20 - 1: false}},
		{"HugeTo", 0, 2 << 20, map[int]bool{0: true, 2 << 20: false, 8<<20 - 1: false}},
		{"HugeTo rounded down", 0, 3 << 20, map[int]bool{0: true, 2 << 20: false}},
		{"HugeTo under a huge page", 0, 1 << 20, map[int]bool{0: false, 8<<20 - 1: false}},
	} {
		a := &Arena{SmallFirst: c.smallFirst, HugeTo: c.hugeTo}
		b := a.Alloc(8 << 20)
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("%s: byte %d not zero", c.name, i)
			}
		}
		for off, want := range c.want {
			b[off] = 1
			hg, ok := advised(uintptr(unsafe.Pointer(&b[off])))
			if !ok {
				t.Fatalf("%s: the arena's mapping is not in /proc/self/smaps", c.name)
			}
			if hg != want {
				t.Errorf("%s: byte %#x advised for huge pages %v, want %v", c.name, off, hg, want)
			}
		}
		if c.hugeTo > 0 {
			m := a.Alloc(chunkSize) // (a mapping of its own)
			m[0] = 1
			if hg, _ := advised(uintptr(unsafe.Pointer(&m[0]))); !hg {
				t.Errorf("%s: a later mapping is not advised for huge pages", c.name)
			}
		}
		a.Free()
	}
}

// advised reports whether the writable mapping holding p is advised for
// huge pages (VmFlags "hg" in /proc/self/smaps), and whether it was found.
func advised(p uintptr) (hg, found bool) {
	l, ok := smapsLine(p, "VmFlags:")
	return strings.Contains(l, " hg"), ok
}

// resident is the Rss of the writable mapping holding p, in KiB, and
// whether it was found.
func resident(p uintptr) (kb int, found bool) {
	l, ok := smapsLine(p, "Rss:")
	if !ok {
		return 0, false
	}
	_, err := fmt.Sscanf(l, "Rss: %d kB", &kb)
	return kb, err == nil
}

// smapsLine returns the line of /proc/self/smaps that starts with field
// for the writable mapping holding p, and whether it was found.
func smapsLine(p uintptr, field string) (string, bool) {
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return "", false
	}
	var lo, hi uint64
	in := false
	for _, l := range strings.Split(string(smaps), "\n") {
		if n, _ := fmt.Sscanf(l, "%x-%x ", &lo, &hi); n == 2 && strings.Contains(l, " rw") {
			in = uint64(p) >= lo && uint64(p) < hi
			continue
		}
		if in && strings.HasPrefix(l, field) {
			return l, true
		}
	}
	return "", false
}

// TestUsed: Used counts what the mappings handed out, 8-byte rounded, and
// Free resets it; the heap fallback and a nil arena count nothing.
func TestUsed(t *testing.T) {
	var a Arena
	a.Alloc(10)
	a.Alloc(3)
	if !a.OffHeap() {
		t.Skip("no mappings on this system")
	}
	if got := a.Used(); got != 24 {
		t.Errorf("Used %d after 10 and 3 bytes, want 24", got)
	}
	a.Free()
	if got := a.Used(); got != 0 {
		t.Errorf("Used %d after Free", got)
	}
	var nilArena *Arena
	nilArena.Alloc(100)
	if got := nilArena.Used(); got != 0 {
		t.Errorf("a nil arena: Used %d", got)
	}
}

// TestTouch checks that Touch leaves every byte as it was, on slices of
// any start and length, mapped or not.
func TestTouch(t *testing.T) {
	var a Arena
	defer a.Free()
	for _, mem := range [][]byte{a.Alloc(3*pageSize + 100), make([]byte, 3*pageSize+100)} {
		for i := range mem {
			mem[i] = byte(i*7 + 1)
		}
		want := bytes.Clone(mem)
		for _, lo := range []int{0, 1, 2, 3, 5, pageSize - 1} {
			for _, hi := range []int{lo, lo + 1, lo + 3, lo + 4, lo + 9, pageSize + 1, len(mem)} {
				if hi < lo {
					continue
				}
				Touch(mem[lo:hi])
				if !bytes.Equal(mem, want) {
					t.Fatalf("Touch(mem[%d:%d]) changed the bytes", lo, hi)
				}
			}
		}
	}
}

// TestTouchFaultsIn: reading fresh memory leaves it out of the resident
// set (the zero page), Touch brings in every page it spans, the last
// partial one included, and no other.
func TestTouchFaultsIn(t *testing.T) {
	var a Arena
	a.SmallFirst = AllSmall
	defer a.Free()
	b := a.Alloc(64 << 20)
	if !a.OffHeap() {
		t.Skip("no mappings on this system")
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	if _, ok := resident(p); !ok {
		t.Skip("no /proc/self/smaps")
	}
	sum := 0
	for i := 0; i < 1<<20; i += pageSize {
		sum += int(b[i])
	}
	before, _ := resident(p)
	if sum != 0 || before > 8 {
		t.Skipf("reading fresh memory made %d KiB resident (no zero page here?)", before)
	}
	Touch(b[pageSize-8 : 17*pageSize+10]) // spans pages 0 to 17
	after, _ := resident(p)
	got, want := after-before, 18*pageSize>>10
	if l, _ := smapsLine(p, "AnonHugePages:"); got > want && !strings.HasSuffix(strings.Join(strings.Fields(l), " "), " 0 kB") {
		t.Skipf("the system gave the mapping huge pages (%s)", l) // (transparent huge pages "always")
	}
	if got != want {
		t.Errorf("Touch brought in %d KiB, want %d", got, want)
	}
}

// TestReset: after Reset, allocations take the arena's mappings again,
// from the start, zeroed, before mapping more; Used counts anew, and Free
// still unmaps everything.
func TestReset(t *testing.T) {
	var a Arena
	defer a.Free()
	first := a.Alloc(1000)
	if !a.OffHeap() {
		t.Skip("no mappings on this system")
	}
	big := a.Alloc(chunkSize) // a mapping of its own
	for i := range first {
		first[i] = 0xAA
	}
	big[0], big[len(big)-1] = 1, 1
	mapped := len(a.chunks)
	a.Reset()
	if got := a.Used(); got != 0 {
		t.Errorf("Used %d after Reset", got)
	}
	again := a.Alloc(1000)
	if &again[0] != &first[0] {
		t.Errorf("the first allocation after Reset is not at the start of the first mapping")
	}
	for i, v := range again {
		if v != 0 {
			t.Fatalf("byte %d of a reused allocation is %#x, want 0", i, v)
		}
	}
	rest := a.Alloc(chunkSize) // does not fit what is left of the first: the second
	if rest[0] != 0 || rest[len(rest)-1] != 0 {
		t.Errorf("the reused large mapping is not cleared")
	}
	if len(a.chunks) != mapped {
		t.Errorf("%d mappings after Reset and the same allocations, want %d", len(a.chunks), mapped)
	}
	a.Alloc(1) // past every spare mapping: a new one
	if len(a.chunks) != mapped+1 {
		t.Errorf("%d mappings, want %d", len(a.chunks), mapped+1)
	}
	if got := a.Used(); got != 1000+chunkSize+8 {
		t.Errorf("Used %d, want %d", got, 1000+chunkSize+8)
	}
}

// TestResident: after Reset, an allocation is resident while it stays
// within what the arena handed out before, in the mapping it would come
// from; past that, or where it would map more, it is not.
func TestResident(t *testing.T) {
	var a Arena
	defer a.Free()
	if a.Resident(8) {
		t.Errorf("an empty arena reports resident memory")
	}
	a.Alloc(3000)
	if !a.OffHeap() {
		t.Skip("no mappings on this system")
	}
	big := a.Alloc(chunkSize + 8) // a mapping of its own, handed out whole
	big[0] = 1
	if a.Resident(64) {
		t.Errorf("the untouched tail of a mapping reports resident")
	}
	a.Reset()
	for _, c := range []struct {
		n    int
		want bool
	}{{1000, true}, {3000, true}, {3001, false}, {chunkSize, false}, {chunkSize + 8, true}, {chunkSize + 9, false}, {0, false}} {
		if got := a.Resident(c.n); got != c.want {
			t.Errorf("Resident(%d) after Reset = %v, want %v", c.n, got, c.want)
		}
	}
	a.Alloc(2000)
	if !a.Resident(1000) || a.Resident(1001) {
		t.Errorf("Resident does not follow the allocations after Reset")
	}
	a.Alloc(1000 + chunkSize) // the second mapping, reused
	if a.Resident(8) {
		t.Errorf("resident memory reported past everything handed out")
	}
	var nilArena *Arena
	if nilArena.Resident(8) {
		t.Errorf("a nil arena reports resident memory")
	}
}

// TestAllocTopRewind: after Reset, AllocTop takes the top of what the
// first mapping had reached, AllocMapped its bottom; Rewind hands the
// bottom out again, cleared, and keeps the top's bytes; where the two
// would meet, AllocTop takes the bottom's memory and Rewind keeps all.
func TestAllocTopRewind(t *testing.T) {
	var a Arena
	defer a.Free()
	first := a.Alloc(1 << 20)
	if !a.OffHeap() {
		t.Skip("no mappings on this system")
	}
	base := &first[0]
	a.Rewind() // (before Reset: nothing)
	if b := a.Alloc(8); &b[0] == base {
		t.Fatalf("Rewind before Reset handed memory out again")
	}
	a.Reset()
	top := a.AllocTop(1000)
	if want := unsafe.Add(unsafe.Pointer(base), (1<<20+8)&^7-1000); unsafe.Pointer(&top[0]) != want {
		t.Errorf("AllocTop is not at the top of what the mapping reached")
	}
	for i := range top {
		top[i] = 0x5A
	}
	low := a.Alloc(4096)
	if &low[0] != base {
		t.Errorf("the bottom does not start the first mapping")
	}
	low[0] = 1
	a.Rewind()
	again := a.Alloc(4096)
	if &again[0] != base || again[0] != 0 {
		t.Errorf("Rewind did not hand the bottom out again, cleared")
	}
	for _, v := range top {
		if v != 0x5A {
			t.Fatalf("Rewind changed AllocTop's bytes")
		}
	}
	// What is left between bottom and top: an AllocTop larger than that
	// goes to the bottom's way, and Rewind then keeps everything.
	big := a.AllocTop(1 << 20)
	big[0] = 7
	a.Rewind()
	if b := a.Alloc(8); &b[0] == base {
		t.Errorf("Rewind reused memory after AllocTop fell back")
	}
	if big[0] != 7 {
		t.Errorf("the fallen-back allocation was cleared")
	}
}

// TestAllocBeyondTop: an allocation that does not fit below AllocTop's
// goes past them in the first mapping, not to another mapping, and
// Rewind starts from the bottom again.
func TestAllocBeyondTop(t *testing.T) {
	var a Arena
	defer a.Free()
	first := a.Alloc(1 << 20)
	if !a.OffHeap() {
		t.Skip("no mappings on this system")
	}
	base := unsafe.Pointer(&first[0])
	a.Reset()
	top := a.AllocTop(512 << 10)
	top[0] = 9
	past := a.Alloc(768 << 10) // (512 KiB left below the top)
	if unsafe.Pointer(&past[0]) != unsafe.Add(base, 1<<20) {
		t.Errorf("the allocation did not go right past AllocTop's")
	}
	if len(a.chunks) != 1 {
		t.Errorf("%d mappings, want 1", len(a.chunks))
	}
	a.Rewind()
	if b := a.Alloc(8); unsafe.Pointer(&b[0]) != base {
		t.Errorf("Rewind did not start from the bottom")
	}
	if top[0] != 9 {
		t.Errorf("AllocTop's bytes changed")
	}
	if a.AllocTop(8) == nil || len(a.chunks) != 1 {
		t.Errorf("AllocTop after Rewind failed")
	}
}

// TestAllocTopUncleared: after Reset, AllocTopUncleared takes the same
// top memory AllocTop would, as the arena had it; AllocTop clears it.
func TestAllocTopUncleared(t *testing.T) {
	for _, cleared := range []bool{false, true} {
		var a Arena
		first := a.Alloc(1 << 20)
		if !a.OffHeap() {
			a.Free()
			t.Skip("no mappings on this system")
		}
		for i := range first {
			first[i] = 0x5A
		}
		a.Reset()
		var top []byte
		if cleared {
			top = a.AllocTop(1000)
		} else {
			top = a.AllocTopUncleared(1000)
		}
		if want := unsafe.Add(unsafe.Pointer(&first[0]), 1<<20-1000); unsafe.Pointer(&top[0]) != want {
			t.Errorf("cleared %v: not at the top of what the mapping reached", cleared)
		}
		want := byte(0x5A)
		if cleared {
			want = 0
		}
		for _, v := range top {
			if v != want {
				t.Fatalf("cleared %v: byte %#x, want %#x", cleared, v, want)
			}
		}
		a.Free()
	}
}
