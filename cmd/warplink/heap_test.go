package main

import (
	"math"
	"os"
	"runtime/debug"
	"slices"
	"testing"
)

// TestSizeHeap checks the heap settings heapSizer.size makes: a soft limit from
// the input size, and for small links the limit alone running the
// collector.
func TestSizeHeap(t *testing.T) {
	defaultHeapSettings(t)
	for _, c := range []struct {
		input     int64
		onHeap    bool
		limit     int64
		gcPercent int
	}{
		{1 << 20, false, 1<<20*23/20 + 16<<20, -1},
		{smallLink - 1, false, (smallLink-1)*23/20 + 16<<20, -1},
		{smallLink, false, smallLink*23/20 + 8<<20, 100},
		{8 << 20, true, 3*(8<<20)*23/20 + 8<<20, 100}, // inputs on the heap count three times
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		(&heapSizer{adviseHeap: func(int) bool { return true }}).size(c.input, c.onHeap)
		if got := debug.SetMemoryLimit(-1); got != c.limit {
			t.Errorf("input %d (on heap %v): limit %d, want %d", c.input, c.onHeap, got, c.limit)
		}
		if got := debug.SetGCPercent(100); got != c.gcPercent {
			t.Errorf("input %d (on heap %v): GOGC %d, want %d", c.input, c.onHeap, got, c.gcPercent)
		}
	}
}

// TestLaterAdvice checks that the advice after read tops the early advice
// up to the limit, and gives none when the early advice covers it.
func TestLaterAdvice(t *testing.T) {
	for _, c := range []struct {
		limit   int64
		advised int
		want    int
	}{
		{30 << 20, earlyAdvice, 0},
		{earlyAdvice, earlyAdvice, 0},
		{100 << 20, earlyAdvice, 100<<20 - earlyAdvice},
		{30 << 20, 0, 30 << 20}, // no early advice: the whole limit
	} {
		if got := laterAdvice(c.limit, c.advised); got != c.want {
			t.Errorf("laterAdvice(%d, %d) = %d, want %d", c.limit, c.advised, got, c.want)
		}
	}
}

// TestHeapAdvice checks what heapSizer asks hugemem.AdviseHeap for: the
// early range unless the inputs go onto the heap, then the rest of the
// limit, or all of it when the early advice was refused, and nothing when
// the inputs are on the heap. It also checks the collector: one collection
// right after the early advice (to hand the range back), off from advise
// to size, then GOGC again (off for a small link), or after release when
// size never ran; with more than pauseInputs inputs, the collector stays on.
func TestHeapAdvice(t *testing.T) {
	defaultHeapSettings(t)
	big := int64(200 << 20) // limit past the early range
	bigLimit := int(big*23/20 + 8<<20)
	for _, c := range []struct {
		name      string
		plain     bool // inputs read onto the heap
		refuse    bool // AdviseHeap refuses
		input     int64
		inputs    int  // files on the command line
		noSize    bool // the link stops in read: no size, only release
		wantAsks  []int
		wantGCs   int // collections advise asked for
		wantAfter int // GOGC after size (or release)
	}{
		{"small link", false, false, 4 << 20, 1000, false, []int{earlyAdvice}, 1, -1},
		{"large link", false, false, big, 1000, false, []int{earlyAdvice, bigLimit - earlyAdvice}, 1, 100},
		{"refused early advice", false, true, big, 1000, false, []int{earlyAdvice, bigLimit}, 0, 100},
		{"inputs on the heap", true, false, big, 1000, false, nil, 0, 100},
		{"stopped in read", false, false, 0, 1000, true, []int{earlyAdvice}, 1, 100},
		{"many inputs", false, false, big, pauseInputs + 1, false, []int{earlyAdvice, bigLimit - earlyAdvice}, 0, 100},
	} {
		debug.SetGCPercent(100)
		var asks []int
		gcs := 0
		h := &heapSizer{
			adviseHeap: func(n int) bool { asks = append(asks, n); return !c.refuse },
			collect:    func() { gcs++ },
		}
		h.advise(c.plain, c.inputs)
		wantDuring := -1
		if c.plain || c.inputs > pauseInputs {
			wantDuring = 100
		}
		if got := gcPercent(); got != wantDuring {
			t.Errorf("%s: GOGC %d during read, want %d", c.name, got, wantDuring)
		}
		if !c.noSize {
			h.size(c.input, c.plain)
		}
		h.release()
		if !slices.Equal(asks, c.wantAsks) {
			t.Errorf("%s: advised %v, want %v", c.name, asks, c.wantAsks)
		}
		if gcs != c.wantGCs {
			t.Errorf("%s: %d collections, want %d", c.name, gcs, c.wantGCs)
		}
		if got := gcPercent(); got != c.wantAfter {
			t.Errorf("%s: GOGC %d after read, want %d", c.name, got, c.wantAfter)
		}
	}
}

// gcPercent is the collector's GOGC setting (-1: off).
func gcPercent() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

// defaultHeapSettings skips the test when GOGC or GOMEMLIMIT is set (the
// heap settings then follow them), else starts it from the runtime's
// defaults and restores the settings afterwards.
func defaultHeapSettings(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set")
	}
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
}
