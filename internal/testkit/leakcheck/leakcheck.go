// Package leakcheck lets tests check that the goroutines they started
// have ended.
package leakcheck

import (
	"runtime"
	"testing"
	"time"
)

// Wait waits up to 100 ms for the goroutine count to fall back to before
// (the count taken before the code under test ran) and fails t otherwise.
func Wait(t testing.TB, before int) {
	t.Helper()
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
}
