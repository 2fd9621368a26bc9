package merge

// read's batches: how many files each worker reads at once, and the
// io_uring rings they read them with (see readInputs).

import (
	"sync"

	"github.com/warplink/warplink/internal/input"
)

// batchSize is how many of n files each of w workers reads at once, with
// rings (ring) or one at a time, under a descriptor limit of fdLimit. A
// batch holds its files open at once: within a quarter of the descriptor
// limit for all workers (a file the ring cannot open is read again file
// by file, so this only keeps that path rare), and with rings within the
// descriptor table a process starts with (freshFDTable).
func batchSize(n, w int, ring bool, fdLimit int) int {
	batch := min(max(n/(4*w), 1), readBatch, max(fdLimit/(4*w), 1))
	if ring {
		batch = min(batch, max((freshFDTable-fdReserve)/w-1, 1))
	}
	return batch
}

// freshFDTable is the size of the descriptor table a process starts with
// when its parent had no descriptor past 63 open (make, ninja, nvcc: all
// but a shell, which keeps 255 open): 64 entries. Opening past it makes
// the kernel grow the table, and in a process of several threads (any Go
// program) it then waits for an RCU grace period, 10-30 ms on the 2-CPU
// virtual machine (a C probe: 14-28 ms a growth). The rings' batches of
// all workers together stay within it, less fdReserve for the standard
// streams, the rings themselves and the few the link opens besides:
// started with a fresh table, the read pass of 1,000 objects took
// 10.3-10.6 ms (medians) against 4.2-4.3 from a shell.
const (
	freshFDTable = 64
	fdReserve    = 8
)

// readBatch is the most files read with one ring at once (input.Ring: on
// the measurement machine 32 read 10,000 small files fastest).
const readBatch = 32

// rings hands out io_uring rings, one per worker at a time, made as they
// are first needed.
type rings struct {
	mu      sync.Mutex
	free    []*input.Ring
	all     []*input.Ring
	refused bool // NewRing failed (or rings are not wanted): read without
}

func newRings(want bool) *rings {
	rs := &rings{refused: !want}
	if want {
		rs.put(rs.get()) // (so that ok can tell)
	}
	return rs
}

// ok reports whether rings are in use.
func (rs *rings) ok() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return !rs.refused
}

// get returns a ring, or nil if there is none.
func (rs *rings) get() *input.Ring {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if n := len(rs.free); n > 0 {
		r := rs.free[n-1]
		rs.free = rs.free[:n-1]
		return r
	}
	if rs.refused {
		return nil
	}
	r := input.NewRing()
	if r == nil {
		rs.refused = true
		return nil
	}
	rs.all = append(rs.all, r)
	return r
}

func (rs *rings) put(r *input.Ring) {
	if r == nil {
		return
	}
	rs.mu.Lock()
	rs.free = append(rs.free, r)
	rs.mu.Unlock()
}

// close releases every ring.
func (rs *rings) close() {
	for _, r := range rs.all {
		r.Release()
	}
	rs.all, rs.free = nil, nil
}
