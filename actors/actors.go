// Package actors holds the small concurrency primitives the link passes
// share: deterministic parallel loops whose results are stored by index and
// whose errors do not depend on scheduling.
package actors

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/warplink/warplink/internal/stackgrow"
)

// chunksPerWorker sets how finely ParallelFor splits its range: enough
// chunks to balance uneven items, few enough to keep the shared counter
// cold.
const chunksPerWorker = 8

// ParallelFor calls fn(i) for every i in [0, n) on up to workers goroutines
// (workers <= 0 means GOMAXPROCS), handing out contiguous chunks in
// increasing order; there is no goroutine per item.
//
// Errors are deterministic: if fn fails, ParallelFor returns the error of
// the lowest failing index, and every index below it has run. Indices above
// it may or may not run. If ctx is cancelled, it stops handing out chunks
// and returns ctx.Err() unless an index already failed.
func ParallelFor(ctx context.Context, n, workers int, fn func(i int) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	if workers == 1 {
		for i := range n {
			if i&63 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}

	chunk := max(1, n/(workers*chunksPerWorker))
	var (
		next    atomic.Int64 // first index of the next chunk
		failAt  atomic.Int64 // lowest failing index, n if none
		mu      sync.Mutex
		failErr error
		wg      sync.WaitGroup
	)
	failAt.Store(int64(n))
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if int64(i) < failAt.Load() {
			failAt.Store(int64(i))
			failErr = err
		}
	}
	work := func() {
		for ctx.Err() == nil {
			lo := int(next.Add(int64(chunk))) - chunk
			if lo >= n || int64(lo) > failAt.Load() {
				return
			}
			for i := lo; i < min(lo+chunk, n); i++ {
				if int64(i) > failAt.Load() {
					return
				}
				if err := fn(i); err != nil {
					fail(i, err)
					return
				}
			}
		}
	}
	// The calling goroutine is one of the workers: it starts at once,
	// where a goroutine of its own would wait to be scheduled while the
	// caller parked. (A panic in fn ends the program, on whichever
	// goroutine it happens: nothing in warplink recovers one but
	// input.Guard, inside fn, from a fault in a mapped input.)
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stackgrow.Worker()
			work()
		}()
	}
	work()
	wg.Wait()
	if failErr != nil {
		return failErr
	}
	return ctx.Err()
}

// Map calls fn for every i in [0, n) like ParallelFor and returns the
// results in index order. On error it returns nil and the error of the
// lowest failing index.
func Map[T any](ctx context.Context, n, workers int, fn func(i int) (T, error)) ([]T, error) {
	out := make([]T, max(n, 0))
	err := ParallelFor(ctx, n, workers, func(i int) error {
		v, err := fn(i)
		out[i] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
