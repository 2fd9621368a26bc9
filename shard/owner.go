// Package shard resolves global symbols in parallel without losing
// determinism.
//
// Input files are parsed by parallel producers. Each producer splits its
// symbols by name hash (Murmur3, ShardOf) and hands one batch per shard to
// that shard's owner goroutine. An owner folds the batches it receives
// strictly in file order, where a file's ID is its position on the command
// line, so each shard's state equals that of a serial link whatever the
// worker or shard count. Conflicts are settled by Resolve, a pure function.
package shard

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// ShardOf maps a name hash to one of n shards (n >= 1). It uses the high
// bits of the hash (a multiply-shift, no division).
func ShardOf(hash uint32, n int) int {
	return int(uint64(hash) * uint64(n) >> 32)
}

// message is one (file, shard) batch on its way to the shard's owner.
type message[P any] struct {
	file  int
	batch []P
}

// Fold runs produce for files 0..nfiles-1 on up to workers goroutines
// (workers <= 0 means GOMAXPROCS) and folds their output into nshards
// states, one owner goroutine per shard.
//
// produce(file, emit) calls emit(shard, batch) at most once per shard; a
// shard it does not emit to gets an empty batch. The batch then belongs to
// the owner: the producer must not touch it again. Owner s calls
// fold(&state[s], file, batch) exactly once per file, in increasing file
// order, so the states do not depend on scheduling.
//
// Producers start in file order and may run at most a bounded window ahead
// of the slowest unfinished file, which bounds the batches an owner holds
// while waiting for an earlier file.
//
// On failure Fold returns the error of the lowest-numbered failing file (all
// files before it still run, files after it may not) and no states. If ctx
// is cancelled it returns ctx.Err(). No goroutine outlives the call.
func Fold[P, S any](ctx context.Context, nfiles, nshards, workers int,
	produce func(file int, emit func(shard int, batch []P)) error,
	newState func(shard int) S,
	fold func(s *S, file int, batch []P)) ([]S, error) {
	if nshards < 1 {
		return nil, fmt.Errorf("shard: %d shards", nshards)
	}
	if nfiles < 0 {
		return nil, fmt.Errorf("shard: %d files", nfiles)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(min(workers, nfiles), 1)
	states := make([]S, nshards)
	for s := range states {
		states[s] = newState(s)
	}
	if nfiles == 0 {
		return states, ctx.Err()
	}

	window := min(32*workers, nfiles)
	run := &foldRun[P]{
		ctx:    ctx,
		window: window,
		inbox:  make([]chan message[P], nshards),
		done:   make([]bool, window),
		wake:   make(chan struct{}),
	}
	run.errFile.Store(int64(nfiles))
	for s := range run.inbox {
		run.inbox[s] = make(chan message[P], workers)
	}

	// Owners stop early only when told to: once producers are finished
	// (nothing can block on a send any more) or ctx is cancelled.
	ownerCtx, stopOwners := context.WithCancel(ctx)
	defer stopOwners()
	var owners errgroup.Group
	for s := range nshards {
		owners.Go(func() error {
			return runOwner(ownerCtx, run.inbox[s], nfiles, window, &states[s], fold)
		})
	}

	// Producers are a plain pool rather than an errgroup: the error that
	// wins is the lowest file's, not the first to happen.
	var producers sync.WaitGroup
	var next atomic.Int64
	for range workers {
		producers.Add(1)
		go func() {
			defer producers.Done()
			emitted := make([]bool, nshards)
			for {
				f := int(next.Add(1) - 1)
				if f >= nfiles || int64(f) > run.errFile.Load() {
					return
				}
				if !run.wait(f) {
					return
				}
				err := run.produceFile(f, emitted, produce)
				run.finish(f)
				if err != nil {
					run.fail(f)
					return
				}
			}
		}()
	}
	producers.Wait()
	if ef := int(run.errFile.Load()); ef < nfiles {
		stopOwners()
		owners.Wait()
		return nil, run.errOf(ef)
	}
	if err := ctx.Err(); err != nil {
		stopOwners()
		owners.Wait()
		return nil, err
	}
	if err := owners.Wait(); err != nil {
		return nil, err
	}
	return states, nil
}

// foldRun is the state Fold's producers share.
type foldRun[P any] struct {
	ctx    context.Context
	window int
	inbox  []chan message[P]

	mu   sync.Mutex
	low  int           // every file below low has finished producing
	done []bool        // ring over [low, low+window): file finished
	wake chan struct{} // closed and replaced when low advances

	errFile atomic.Int64 // lowest failing file, nfiles if none
	errMu   sync.Mutex
	errs    map[int]error
}

// wait blocks until file f is within the window, reporting false if the
// run is cancelled or failed before f.
func (r *foldRun[P]) wait(f int) bool {
	for {
		r.mu.Lock()
		ok := f < r.low+r.window
		ch := r.wake
		r.mu.Unlock()
		// Checked after reading low: a cancellation that let low move
		// past an unsent batch is visible here (see emit).
		if r.ctx.Err() != nil || int64(f) > r.errFile.Load() {
			return false
		}
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-r.ctx.Done():
			return false
		}
	}
}

// finish records that file f has sent all its batches.
func (r *foldRun[P]) finish(f int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done[f%r.window] = true
	moved := false
	for r.done[r.low%r.window] {
		r.done[r.low%r.window] = false
		r.low++
		moved = true
	}
	if moved {
		close(r.wake)
		r.wake = make(chan struct{})
	}
}

// fail lowers the failing-file mark to f; produceFile has stored the error.
func (r *foldRun[P]) fail(f int) {
	for {
		cur := r.errFile.Load()
		if int64(f) >= cur || r.errFile.CompareAndSwap(cur, int64(f)) {
			return
		}
	}
}

// errOf returns the error file f failed with.
func (r *foldRun[P]) errOf(f int) error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.errs[f]
}

// produceFile runs produce for file f and then sends empty batches to the
// shards it skipped, so that every owner hears from every file even when
// produce fails.
func (r *foldRun[P]) produceFile(f int, emitted []bool, produce func(int, func(int, []P)) error) error {
	clear(emitted)
	var misuse error
	emit := func(s int, batch []P) {
		switch {
		case s < 0 || s >= len(r.inbox):
			misuse = fmt.Errorf("shard: file %d emitted to shard %d of %d", f, s, len(r.inbox))
			return
		case emitted[s]:
			misuse = fmt.Errorf("shard: file %d emitted twice to shard %d", f, s)
			return
		}
		emitted[s] = true
		r.send(s, message[P]{file: f, batch: batch})
	}
	err := produce(f, emit)
	if err == nil {
		err = misuse
	}
	for s, ok := range emitted {
		if !ok {
			r.send(s, message[P]{file: f})
		}
	}
	if err != nil {
		r.errMu.Lock()
		if r.errs == nil {
			r.errs = make(map[int]error)
		}
		r.errs[f] = err
		r.errMu.Unlock()
	}
	return err
}

// send delivers m to shard s unless the run is cancelled.
func (r *foldRun[P]) send(s int, m message[P]) {
	select {
	case r.inbox[s] <- m:
	case <-r.ctx.Done():
	}
}

// runOwner folds the batches of one shard in file order. Batches that
// arrive early wait in a ring of window slots: a producer only starts file g
// once every file below g-window has sent everything, so while the owner
// waits for file f every pending file is below f+window.
func runOwner[P, S any](ctx context.Context, inbox <-chan message[P], nfiles, window int,
	state *S, fold func(*S, int, []P)) error {
	pending := make([][]P, window)
	have := make([]bool, window)
	next := 0
	for next < nfiles {
		var m message[P]
		select {
		case m = <-inbox:
		case <-ctx.Done():
			return ctx.Err()
		}
		if m.file < next || m.file >= next+window || have[m.file%window] {
			return fmt.Errorf("shard: internal error: file %d arrived while folding file %d", m.file, next)
		}
		pending[m.file%window], have[m.file%window] = m.batch, true
		for next < nfiles && have[next%window] {
			i := next % window
			fold(state, next, pending[i])
			pending[i], have[i] = nil, false
			next++
		}
	}
	return nil
}
