package merge

// strqueue: the string tables' additions of the serial merge pass, made on
// another goroutine in the order merge asks for them.
//
// Inputs: additions to Context.Str and Context.ShStr (addStr, addStrDup),
// each with where its offset goes (a section's or symbol's nameOff,
// Context.emptyProto), from merge's goroutine.
// Outputs: the same tables and offsets as adding each string on the spot,
// since one goroutine adds them all in the order they were asked for; every
// offset is in place once close returns.
// Invariants: while a queue is open, nothing reads or adds to its tables
// but its consumer (StrTab.queued makes the tables' own methods refuse),
// and nothing reads an offset it has still to write. A merge's offsets are
// read only from finalize on.
//
// Why: merge is the link's longest serial pass, and a third of it was the
// tables' lookups (221,000 additions at 10,000 generated objects; merge
// took 30 instead of 45 ms with the lookups left out), each a cache miss
// or two in tables of megabytes, while the other core waited for the pass
// to end. Queued in batches, an addition costs merge an append.

// strOp is one queued addition.
type strOp struct {
	t   *StrTab
	s   string
	dst *uint32 // receives the offset (nil: not wanted)
	dup bool    // AddDup, not Add
}

// strBatch is how many additions travel together: one channel operation
// per batch, not per string.
const strBatch = 1024

// queueMin is the least input (sections and symbols together) for which
// merge queues its additions: below it the goroutine and its channel
// operations cost more than the lookups (about 300 generated objects).
const queueMin = 8192

// strQueue hands additions to the goroutine that makes them.
type strQueue struct {
	cur  []strOp
	full chan []strOp // batches to add, in order
	free chan []strOp // added batches, for reuse
	done chan struct{}
	tabs []*StrTab
}

// openStrQueue starts a consumer that makes the additions queued to
// tables tabs from here until close, and marks the tables queued.
func openStrQueue(tabs ...*StrTab) *strQueue {
	q := &strQueue{
		cur:  make([]strOp, 0, strBatch),
		full: make(chan []strOp, 8),
		free: make(chan []strOp, 8),
		done: make(chan struct{}),
		tabs: tabs,
	}
	for _, t := range tabs {
		t.queued = true
	}
	go q.consume()
	return q
}

// consume makes the queued additions, batch by batch, in order.
func (q *strQueue) consume() {
	defer close(q.done)
	for b := range q.full {
		for i := range b {
			op := &b[i]
			var off uint32
			if op.dup {
				off = op.t.addDup(op.s)
			} else {
				off = op.t.add(op.s)
			}
			if op.dst != nil {
				*op.dst = off
			}
			*op = strOp{} // (let the batch hold no string while it waits for reuse)
		}
		select {
		case q.free <- b[:0]:
		default:
		}
	}
}

// push queues one addition.
func (q *strQueue) push(op strOp) {
	q.cur = append(q.cur, op)
	if len(q.cur) == strBatch {
		q.full <- q.cur
		select {
		case q.cur = <-q.free:
		default:
			q.cur = make([]strOp, 0, strBatch)
		}
	}
}

// close sends what is left, waits until every addition is made, and hands
// the tables back to their methods.
func (q *strQueue) close() {
	if len(q.cur) > 0 {
		q.full <- q.cur
	}
	close(q.full)
	<-q.done
	for _, t := range q.tabs {
		t.queued = false
	}
}

// addStr enters s into string table t in creation order; dst, when not
// nil, receives its offset: at once, or while merge queues its additions
// (Context.strq), by the end of merge.
func (ctx *Context) addStr(t *StrTab, s string, dst *uint32) {
	if ctx.strq != nil {
		ctx.strq.push(strOp{t: t, s: s, dst: dst})
		return
	}
	off := t.Add(s)
	if dst != nil {
		*dst = off
	}
}

// addStrDup is addStr with StrTab.AddDup: s is appended even when present.
func (ctx *Context) addStrDup(t *StrTab, s string, dst *uint32) {
	if ctx.strq != nil {
		ctx.strq.push(strOp{t: t, s: s, dst: dst, dup: true})
		return
	}
	off := t.AddDup(s)
	if dst != nil {
		*dst = off
	}
}
