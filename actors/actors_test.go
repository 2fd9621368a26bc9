package actors

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warplink/warplink/internal/testkit/leakcheck"
)

func TestParallelForVisitsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1000, 12345} {
		for _, workers := range []int{-1, 0, 1, 2, 3, 8, 64} {
			seen := make([]int32, n)
			err := ParallelFor(context.Background(), n, workers, func(i int) error {
				atomic.AddInt32(&seen[i], 1)
				return nil
			})
			if err != nil {
				t.Fatalf("n=%d workers=%d: %v", n, workers, err)
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d workers=%d: index %d ran %d times", n, workers, i, c)
				}
			}
		}
	}
}

func TestParallelForLowestErrorWins(t *testing.T) {
	before := runtime.NumGoroutine()
	for iter := range 200 {
		workers := 1 + iter%8
		n := 500
		var ran [500]atomic.Bool
		err := ParallelFor(context.Background(), n, workers, func(i int) error {
			ran[i].Store(true)
			switch i {
			case 137:
				time.Sleep(50 * time.Microsecond) // fails after 301 and 499 do
				return fmt.Errorf("index %d", i)
			case 301, 499:
				return fmt.Errorf("index %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "index 137" {
			t.Fatalf("workers=%d: err = %v, want index 137", workers, err)
		}
		for i := range 137 {
			if !ran[i].Load() {
				t.Fatalf("workers=%d: index %d below the failure did not run", workers, i)
			}
		}
	}
	leakcheck.Wait(t, before)
}

func TestParallelForCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var count atomic.Int64
	err := ParallelFor(ctx, 1_000_000, 4, func(i int) error {
		if count.Add(1) == 1000 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if c := count.Load(); c == 1_000_000 {
		t.Errorf("cancellation did not stop the loop")
	}
	if err := ParallelFor(ctx, 10, 1, func(int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("serial path ignores a cancelled context: %v", err)
	}
}

func TestMap(t *testing.T) {
	for _, workers := range []int{1, 3, 16} {
		got, err := Map(context.Background(), 1000, workers, func(i int) (string, error) {
			if i%97 == 0 {
				runtime.Gosched()
			}
			return fmt.Sprint(i * i), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range got {
			if s != fmt.Sprint(i*i) {
				t.Fatalf("workers=%d: result %d = %q", workers, i, s)
			}
		}
	}
	got, err := Map(context.Background(), 50, 4, func(i int) (int, error) {
		if i >= 20 {
			return 0, fmt.Errorf("bad %d", i)
		}
		return i, nil
	})
	if got != nil || err == nil || err.Error() != "bad 20" {
		t.Errorf("Map error: %v, %v", got, err)
	}
	if got, err := Map(context.Background(), 0, 4, func(int) (int, error) { return 1, nil }); err != nil || len(got) != 0 {
		t.Errorf("empty Map: %v, %v", got, err)
	}
}

func BenchmarkParallelFor(b *testing.B) {
	data := make([]uint64, 1<<20)
	for b.Loop() {
		_ = ParallelFor(context.Background(), len(data), 0, func(i int) error {
			data[i] = uint64(i) * 0x9E3779B97F4A7C15
			return nil
		})
	}
}

// BenchmarkParallelForSmall measures what one call costs besides its work:
// a few hundred items, as a pass of a small link hands out.
func BenchmarkParallelForSmall(b *testing.B) {
	data := make([]uint64, 256)
	for b.Loop() {
		_ = ParallelFor(context.Background(), len(data), 0, func(i int) error {
			data[i] = uint64(i) * 0x9E3779B97F4A7C15
			return nil
		})
	}
}
