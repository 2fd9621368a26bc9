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

import "unsafe"

// strOp is one queued addition: to q.tabs[tab]. (Two pointers, not
// three: while the collector marks, each pointer written costs a write
// barrier, and merge queues some 220,000 of these at 10,000 objects.)
type strOp struct {
	s    string
	dst  *uint32   // receives the offset (nil: not wanted)
	tab  uint8     // which table (an index into strQueue.tabs)
	also uint8     // a second table the string goes to after tab, plus one (0: none)
	pre  strPrefix // the string is strPrefixes[pre]+s
	dup  bool      // AddDup, not Add
}

// strPrefix names one of the fixed beginnings of the names merge makes
// (strPrefixes): an addition of a made name carries its code and the rest
// of the name, and the consumer joins them in a buffer of its own, so
// that merge allocates no string for names nothing else keeps (at 10,000
// generated objects some 30,000: .nv.info.<f>, .rel.nv.constant0.<k>,
// .rel<section>).
type strPrefix uint8

const (
	preNone strPrefix = iota
	preInfo
	preRel
	preRela
	preResolved
)

// strPrefixes spells each strPrefix.
// (".rel" is relCompanion too.)
var strPrefixes = [...]string{preNone: "", preInfo: ".nv.info", preRel: ".rel", preRela: ".rela", preResolved: resolvedRela}

// strBatch is how many additions travel together: one channel operation
// per batch, not per string.
const strBatch = 1024

// opBatch is a batch of additions and how many it holds. (An array
// behind a pointer, filled by index: appending to a slice would store
// the slice's header, pointer and all, at every addition.)
type opBatch struct {
	ops [strBatch]strOp
	n   int
}

// queuedBatches is how many full batches merge may queue ahead of the
// consumer before it waits (and how many added ones are kept for reuse):
// enough (2 MiB of additions) to cover what the walk queues while the
// consumer's thread is off its core for a few scheduler slices (another
// process on a loaded machine) or faults in its tables' pages; with a
// few, the walk of a large link waited on the channel for a good part of
// merge.
const queuedBatches = 64

// queueMin is the least input (sections and symbols together) for which
// merge queues its additions: below it the goroutine and its channel
// operations cost more than the lookups (about 300 generated objects).
const queueMin = 8192

// strQueue hands additions to the goroutine that makes them.
type strQueue struct {
	cur  *opBatch
	full chan *opBatch // batches to add, in order
	free chan *opBatch // added batches, for reuse
	done chan struct{}
	tabs []*StrTab
	// setup runs on the consumer before the first addition (nil: none).
	setup func()
	// slabs: record slabs the consumer makes ready while it waits
	// (slabfeed.go; nil: none).
	slabs *slabFeed
}

// openStrQueue starts a consumer that makes the additions queued to
// tables tabs (at most 256) from here until close, and marks the tables
// queued. The consumer first runs setup (unless nil), which may use the
// tables' unexported methods (StrTab.reserve). Between additions it
// makes slabs ready in slabs (nil: none).
func openStrQueue(setup func(), slabs *slabFeed, tabs ...*StrTab) *strQueue {
	q := &strQueue{setup: setup, slabs: slabs,
		cur:  &opBatch{},
		full: make(chan *opBatch, queuedBatches),
		free: make(chan *opBatch, queuedBatches),
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
	if q.setup != nil {
		q.setup()
	}
	// (Here, not on merge's goroutine: the faults overlap merge.)
	for _, t := range q.tabs {
		t.prefault()
	}
	var joined joinedRing
	var hashes [strBatch]uint32
	for {
		var b *opBatch
		select {
		case b = <-q.full:
		default:
			// (Nothing to add yet: ready a slab for the walk instead.)
			if q.slabs.feed() {
				continue
			}
			b = <-q.full
		}
		if b == nil {
			return // (closed)
		}
		ops := b.ops[:b.n]
		// Each lookup's slot is asked for hashAhead additions before it,
		// and the bytes of the string there probeAhead before it: the
		// lookups' cache misses overlap instead of coming one by one.
		for i := range min(hashAhead, len(ops)) {
			q.hashAhead(&ops[i], &hashes[i], joined.at(i))
		}
		for i := range ops {
			if j := i + hashAhead; j < len(ops) {
				q.hashAhead(&ops[j], &hashes[j], joined.at(j))
			}
			if j := i + probeAhead; j < len(ops) && ops[j].hashed() {
				q.tabs[ops[j].tab].prefetchFirst(hashes[j])
			}
			op := &ops[i]
			s, hashed := op.s, op.hashed()
			if op.pre != preNone {
				// (put keeps no reference to s: a new string's bytes are
				// copied into the table.)
				name := *joined.at(i)
				s = unsafe.String(unsafe.SliceData(name), len(name))
			}
			t := q.tabs[op.tab]
			off := putMaybeHashed(t, s, hashed, hashes[i], op.dup)
			if op.also != 0 {
				u := q.tabs[op.also-1]
				putMaybeHashed(u, s, hashed && u.seed == t.seed, hashes[i], op.dup)
			}
			if op.dst != nil {
				*op.dst = off
			}
			*op = strOp{} // (let the batch hold no string while it waits for reuse)
		}
		b.n = 0
		select {
		case q.free <- b:
		default:
		}
	}
}

// How far ahead of its lookup consume hashes an addition and asks for its
// slot (hashAhead), then for the string that slot holds (probeAhead).
const (
	hashAhead  = 16
	probeAhead = 8
)

// joinedRing holds the names of the additions that join a prefix and a
// rest (strPrefix), made as hashAhead reaches them, one buffer for each
// addition from the one being made to the last hashed ahead: the buffer
// of addition i is reused by addition i+len(joinedRing), hashed after
// addition i is made.
type joinedRing [hashAhead + 1][]byte

// at is the buffer of addition i of a batch.
func (r *joinedRing) at(i int) *[]byte { return &r[i%len(r)] }

// hashed reports whether consume hashes op's string ahead (every
// addition but of "").
func (op *strOp) hashed() bool { return op.pre != preNone || op.s != "" }

// hashAhead hashes op's string into *h and asks for its first slot, in
// its second table too when that hashes alike; a joined name is made in
// *joined first.
func (q *strQueue) hashAhead(op *strOp, h *uint32, joined *[]byte) {
	if op.hashed() {
		t := q.tabs[op.tab]
		s := op.s
		if op.pre != preNone {
			*joined = append(append((*joined)[:0], strPrefixes[op.pre]...), op.s...)
			s = unsafe.String(unsafe.SliceData(*joined), len(*joined))
		}
		*h = t.hash(s)
		t.prefetchSlot(*h)
		if op.also != 0 {
			if u := q.tabs[op.also-1]; u.seed == t.seed {
				u.prefetchSlot(*h)
			}
		}
	}
}

// putMaybeHashed is t.put, or t.putHashed with h when hashed (s is not
// "" and h is its hash in t).
func putMaybeHashed(t *StrTab, s string, hashed bool, h uint32, dup bool) uint32 {
	if hashed {
		return t.putHashed(s, h, dup)
	}
	return t.put(s, dup)
}

// push queues one addition to q.tabs[tab] (of strPrefixes[pre]+s), and
// after it to q.tabs[also-1] unless also is 0 (with dst for the first).
func (q *strQueue) push(tab, also uint8, pre strPrefix, s string, dst *uint32, dup bool) {
	b := q.cur
	// (Field by field into the slot, which consume left zero: a strOp
	// built whole and copied in was stored in small parts and reloaded in
	// wide ones, a store-forwarding stall at every addition.)
	op := &b.ops[b.n]
	op.s, op.dst = s, dst
	op.tab, op.also, op.pre, op.dup = tab, also, pre, dup
	if b.n++; b.n == strBatch {
		q.full <- b
		select {
		case q.cur = <-q.free:
		default:
			q.cur = &opBatch{}
		}
	}
}

// close sends what is left, waits until every addition is made, and hands
// the tables back to their methods.
func (q *strQueue) close() {
	if q.cur.n > 0 {
		q.full <- q.cur
	}
	close(q.full)
	<-q.done
	for _, t := range q.tabs {
		t.queued = false
	}
}

// table is the index of t among q's tables.
func (q *strQueue) table(t *StrTab) uint8 {
	for i, u := range q.tabs {
		if u == t {
			return uint8(i)
		}
	}
	panic("merge: string table not queued")
}

// addStr enters s into string table t in creation order; dst, when not
// nil, receives its offset: at once, or while merge queues its additions
// (Context.strq), by the end of merge.
func (ctx *Context) addStr(t *StrTab, s string, dst *uint32) { ctx.addStrTo(t, s, dst, false) }

// addStrDup is addStr with StrTab.AddDup: s is appended even when present.
func (ctx *Context) addStrDup(t *StrTab, s string, dst *uint32) { ctx.addStrTo(t, s, dst, true) }

// addStrTo is addStr, or addStrDup with dup.
func (ctx *Context) addStrTo(t *StrTab, s string, dst *uint32, dup bool) {
	ctx.addJoinedTo(t, preNone, s, dst, dup)
}

// addJoined is addStr of strPrefixes[pre]+s, without making that string
// while merge queues its additions.
func (ctx *Context) addJoined(t *StrTab, pre strPrefix, s string) {
	ctx.addJoinedTo(t, pre, s, nil, false)
}

// addJoinedTo is addStrTo of strPrefixes[pre]+s.
func (ctx *Context) addJoinedTo(t *StrTab, pre strPrefix, s string, dst *uint32, dup bool) {
	if q := ctx.strq; q != nil {
		q.push(q.table(t), 0, pre, s, dst, dup)
		return
	}
	t.mustNotBeQueued()
	if pre != preNone {
		s = strPrefixes[pre] + s
	}
	off := t.put(s, dup)
	if dst != nil {
		*dst = off
	}
}

// addJoinedBoth is addJoined of strPrefixes[pre]+s to t, then to u: one
// queued addition for both tables (a section name nvlink enters in
// .shstrtab and .strtab alike).
func (ctx *Context) addJoinedBoth(t, u *StrTab, pre strPrefix, s string) {
	if q := ctx.strq; q != nil {
		q.push(q.table(t), q.table(u)+1, pre, s, nil, false)
		return
	}
	ctx.addJoined(t, pre, s)
	ctx.addJoined(u, pre, s)
}
