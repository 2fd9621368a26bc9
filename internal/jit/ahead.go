package jit

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"
)

// The link's read pass compiles an input's PTX when it reaches the input,
// each of its goroutines working through a batch of inputs in turn: at
// the end of the pass one goroutine may still have several compiles to
// run one after another while the other CPUs wait. So the first compile
// also makes the Compiler scan the inputs itself (in nvlink's order) and
// compile, one per CPU at once and in input order, every PTX the link is
// going to ask for. A compile is keyed by what ptxas gets, its arguments
// and the PTX: the read pass finds its compile done, or under way (and
// waits), or not started (and runs it). Who runs a compile, and when,
// does not change its result.

// job is one compile: by the read pass (PTX) or the Compiler's own
// goroutines (ahead), whichever claims it first.
type job struct {
	args    []string
	ptx     []byte // (nil once compiled)
	claimed atomic.Bool
	done    chan struct{} // closed when the results are set
	cubin   []byte
	log     string
	err     error
	took    time.Duration
	given   atomic.Bool // a caller has had cubin (the others get a copy)
}

// jobs are a link's compiles by key.
type jobs struct {
	mu     sync.Mutex
	byKey  map[string]*job
	queue  []*job       // the scan's, in input order
	next   atomic.Int64 // the first queue entry not yet looked at
	failed atomic.Bool  // a compile failed: nvlink stops there, so stop ahead
	stop   atomic.Bool  // Close: start no more compiles ahead
}

// jobKey is the key of ptxas's compile of ptx with args: the arguments,
// each NUL-terminated, a NUL, then the PTX. The key is the input itself, so
// no two compiles share one, and no hash package (crypto/sha256 brings the
// FIPS module's package initialisation into every process) is needed.
func jobKey(args []string, ptx []byte) string {
	n := 1 + len(ptx)
	for _, a := range args {
		n += len(a) + 1
	}
	k := make([]byte, 0, n)
	for _, a := range args {
		k = append(k, a...)
		k = append(k, 0)
	}
	k = append(k, 0)
	return string(append(k, ptx...))
}

// get returns the job for (args, ptx), made if there is none (made true).
func (js *jobs) get(args []string, ptx []byte) (j *job, made bool) {
	k := jobKey(args, ptx)
	js.mu.Lock()
	defer js.mu.Unlock()
	if j := js.byKey[k]; j != nil {
		return j, false
	}
	if js.byKey == nil {
		js.byKey = map[string]*job{}
	}
	j = &job{args: args, ptx: ptx, done: make(chan struct{})}
	js.byKey[k] = j
	return j, true
}

// run compiles j (its claimer, holding a CPU slot).
func (c *Compiler) run(j *job) {
	t0 := time.Now()
	j.cubin, j.log, j.err = runPTXAS(c.zyg, c.path, j.args, j.ptx)
	j.took, j.ptx = time.Since(t0), nil
	if j.err != nil {
		c.jobs.failed.Store(true)
	}
	close(j.done)
}

// ahead scans the inputs and compiles their PTX on one goroutine per CPU
// slot, in input order, until every compile is claimed, one fails, or
// Close.
func (c *Compiler) ahead() {
	items, _ := scan(c.opts.Inputs, c.opts.LibDirs, c.opts.Arch, scanPTX)
	lto := c.lto != nil && !c.lto.None
	var queue []*job
	for _, it := range items {
		if it.ptx == nil || lto && it.kind == itemIR {
			continue // (no PTX, or the LTO program takes the input's IR)
		}
		if j, made := c.jobs.get(c.opts.Args(it.ptxOpts, false), it.ptx); made {
			queue = append(queue, j)
		}
	}
	c.jobs.mu.Lock()
	c.jobs.queue = queue
	c.jobs.mu.Unlock()
	for range cap(c.sem) {
		go c.aheadWorker()
	}
}

// aheadWorker runs the queue's unclaimed compiles, each in a CPU slot.
// (A job it claims it runs, stopped or not: the read pass may wait on it.)
func (c *Compiler) aheadWorker() {
	for !c.jobs.failed.Load() && !c.jobs.stop.Load() {
		c.sem <- struct{}{}
		j := c.jobs.claimNext()
		if j != nil {
			c.run(j)
		}
		<-c.sem
		if j == nil {
			return
		}
	}
}

// claimNext claims the queue's next unclaimed job (nil: none is left).
func (js *jobs) claimNext() *job {
	for {
		i := int(js.next.Add(1)) - 1
		if i >= len(js.queue) {
			return nil
		}
		if js.queue[i].claimed.CompareAndSwap(false, true) {
			return js.queue[i]
		}
	}
}

// Close stops the compiles ahead: none is started after it (those under
// way end on their own, as processes of their own), and ends the zygote.
func (c *Compiler) Close() {
	c.jobs.stop.Store(true)
	c.zyg.close()
}

// compile is PTX's compile: the job's results, once someone ran it.
func (c *Compiler) compile(args []string, ptx []byte) *job {
	c.aheadOnce.Do(func() { go c.ahead() })
	j, _ := c.jobs.get(args, ptx)
	if j.claimed.CompareAndSwap(false, true) {
		c.sem <- struct{}{}
		c.run(j)
		<-c.sem
	}
	<-j.done
	return j
}

// result is j's cubin for a caller: the first gets it, the others (inputs
// of the same PTX) a copy each, which the link may change as its own.
func (j *job) result() []byte {
	if j.cubin == nil || j.given.CompareAndSwap(false, true) {
		return j.cubin
	}
	return bytes.Clone(j.cubin)
}
