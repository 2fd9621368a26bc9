package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
)

// TestSizeHeap checks the heap settings heapSizer.size makes: a soft limit from
// the input size, and for small links the limit alone running the
// collector.
func TestSizeHeap(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set")
	}
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}()
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
		(&heapSizer{}).size(c.input, c.onHeap)
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
