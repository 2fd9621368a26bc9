// Package shard resolves global symbols in parallel without losing
// determinism.
//
// Input files are parsed by parallel producers. Each producer splits a
// file's symbols by name hash (Murmur3, ShardOf) into one batch per shard,
// and hands the batches of a group of consecutive files to each shard's
// owner goroutine in one message. An owner folds the batches it receives
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

	"github.com/warplink/warplink/internal/stackgrow"
)

// ShardOf maps a name hash to one of n shards (n >= 1). It uses the high
// bits of the hash (a multiply-shift, no division), leaving the low bits
// to spread a shard's names over its owner's table (merge's nameIndex).
func ShardOf(hash uint32, n int) int {
	return int(uint64(hash) * uint64(n) >> 32)
}

// message is one group's batches for one shard, on their way to the
// shard's owner: batches[k] is file first+k's (nil: none).
type message[P any] struct {
	group   int
	batches [][]P
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
// Producers take the files in groups of consecutive files, in order, and
// send each owner one message per group holding the group's batches for
// its shard: a message per file and shard cost more than producing the
// batches (at 10,000 small files on two cores the fold took as long as a
// serial one). Producers may run at most a bounded window of groups ahead
// of the slowest unfinished group, which bounds the batches an owner holds
// while waiting for an earlier group.
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
	if workers == 1 {
		return states, foldSerial(ctx, nfiles, states, produce, fold)
	}

	// Groups small enough that every worker gets several, at most 64
	// files.
	size := min(max(nfiles/(8*workers), 1), 64)
	ngroups := (nfiles + size - 1) / size
	window := min(8*workers, ngroups)
	run := &foldRun[P]{
		ctx:    ctx,
		nfiles: nfiles,
		size:   size,
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
			stackgrow.Worker()
			return runOwner(ownerCtx, run.inbox[s], ngroups, size, window, &states[s], fold)
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
			stackgrow.Worker()
			emitted := make([]bool, nshards)
			for {
				g := int(next.Add(1) - 1)
				if g >= ngroups || int64(g*size) > run.errFile.Load() {
					return
				}
				if !run.wait(g) {
					return
				}
				failed := run.produceGroup(g, emitted, produce)
				run.finish(g)
				if failed {
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

// foldSerial is Fold on the calling goroutine alone (one worker): each
// file is produced, then folded into every shard, in file order, with no
// goroutine or channel (a small link's resolve, where starting the
// owners cost more than their work). On failure the states are not
// returned (Fold), so what was folded before does not matter.
func foldSerial[P, S any](ctx context.Context, nfiles int, states []S,
	produce func(file int, emit func(shard int, batch []P)) error,
	fold func(s *S, file int, batch []P)) error {
	batches := make([][]P, len(states))
	emitted := make([]bool, len(states))
	for f := range nfiles {
		if err := ctx.Err(); err != nil {
			return err
		}
		clear(batches)
		clear(emitted)
		var misuse error
		err := produce(f, func(s int, batch []P) {
			switch {
			case s < 0 || s >= len(states):
				misuse = fmt.Errorf("shard: file %d emitted to shard %d of %d", f, s, len(states))
			case emitted[s]:
				misuse = fmt.Errorf("shard: file %d emitted twice to shard %d", f, s)
			default:
				emitted[s], batches[s] = true, batch
			}
		})
		if err == nil {
			err = misuse
		}
		if err != nil {
			return err
		}
		for s := range states {
			fold(&states[s], f, batches[s])
		}
	}
	return nil
}

// foldRun is the state Fold's producers share.
type foldRun[P any] struct {
	ctx    context.Context
	nfiles int
	size   int // files per group
	window int // in groups
	inbox  []chan message[P]

	mu   sync.Mutex
	low  int           // every group below low has finished producing
	done []bool        // ring over [low, low+window): group finished
	wake chan struct{} // closed and replaced when low advances

	errFile atomic.Int64 // lowest failing file, nfiles if none
	errMu   sync.Mutex
	errs    map[int]error
}

// wait blocks until group g is within the window, reporting false if the
// run is cancelled or failed before g.
func (r *foldRun[P]) wait(g int) bool {
	for {
		r.mu.Lock()
		ok := g < r.low+r.window
		ch := r.wake
		r.mu.Unlock()
		// Checked after reading low: a cancellation that let low move
		// past an unsent batch is visible here (see emit).
		if r.ctx.Err() != nil || int64(g*r.size) > r.errFile.Load() {
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

// finish records that group g has sent all its batches.
func (r *foldRun[P]) finish(g int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done[g%r.window] = true
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

// fail lowers the failing-file mark to f; produceGroup has stored the error.
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

// produceGroup runs produce for the files of group g in order, stopping
// after one that fails, then sends every owner the group's batches (nil
// for the files it skipped), so that every owner hears from every group.
// It reports whether a file failed.
func (r *foldRun[P]) produceGroup(g int, emitted []bool, produce func(int, func(int, []P)) error) bool {
	first := g * r.size
	n := min(r.size, r.nfiles-first)
	batches := make([][][]P, len(r.inbox)) // by shard, then file in the group
	for s := range batches {
		batches[s] = make([][]P, n)
	}
	failed := false
	for k := range n {
		f := first + k
		if int64(f) > r.errFile.Load() || r.ctx.Err() != nil {
			break // an earlier file failed, or the run is cancelled: the rest need not run
		}
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
			batches[s][k] = batch
		}
		err := produce(f, emit)
		if err == nil {
			err = misuse
		}
		if err != nil {
			r.errMu.Lock()
			if r.errs == nil {
				r.errs = make(map[int]error)
			}
			r.errs[f] = err
			r.errMu.Unlock()
			r.fail(f)
			failed = true
			break
		}
	}
	for s := range batches {
		r.send(s, message[P]{group: g, batches: batches[s]})
	}
	return failed
}

// send delivers m to shard s unless the run is cancelled.
func (r *foldRun[P]) send(s int, m message[P]) {
	select {
	case r.inbox[s] <- m:
	case <-r.ctx.Done():
	}
}

// runOwner folds the batches of one shard in file order. Groups that
// arrive early wait in a ring of window slots: a producer only starts group
// g once every group below g-window has sent everything, so while the owner
// waits for group h every pending group is below h+window.
func runOwner[P, S any](ctx context.Context, inbox <-chan message[P], ngroups, size, window int,
	state *S, fold func(*S, int, []P)) error {
	pending := make([][][]P, window)
	have := make([]bool, window)
	next := 0
	for next < ngroups {
		var m message[P]
		select {
		case m = <-inbox:
		case <-ctx.Done():
			return ctx.Err()
		}
		if m.group < next || m.group >= next+window || have[m.group%window] {
			return fmt.Errorf("shard: internal error: group %d arrived while folding group %d", m.group, next)
		}
		pending[m.group%window], have[m.group%window] = m.batches, true
		for next < ngroups && have[next%window] {
			i := next % window
			for k, b := range pending[i] {
				fold(state, next*size+k, b)
			}
			pending[i], have[i] = nil, false
			next++
		}
	}
	return nil
}
