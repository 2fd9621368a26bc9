package merge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestStrQueueSameAsDirect makes one sequence of additions (Add and AddDup,
// repeats, empty strings, offsets wanted or not, both tables) through a
// strQueue and on the spot, and checks the tables' bytes, every offset
// handed back and the ordinals are the same: the queue changes when the
// additions are made, never what they give. Names made of a strPrefix and
// a rest (addJoinedTo) are queued as such, and added on the spot as the
// whole name; one addition may go to both tables (addJoinedBoth).
func TestStrQueueSameAsDirect(t *testing.T) {
	type op struct {
		shstr, dup, want, both bool
		pre                    strPrefix
		s                      string
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var ops []op
	for i := 0; i < 5*strBatch+17; i++ {
		s := fmt.Sprintf(".text.f%d", rng.IntN(3000))
		switch rng.IntN(10) {
		case 0:
			s = ""
		case 1:
			s = ".rela" + s
		}
		pre := preNone
		if rng.IntN(3) == 0 {
			pre = strPrefix(rng.IntN(len(strPrefixes)))
		}
		o := op{shstr: rng.IntN(2) == 0, dup: rng.IntN(20) == 0, want: rng.IntN(3) > 0, pre: pre, s: s}
		if rng.IntN(4) == 0 {
			o = op{both: true, pre: pre, s: s} // (addJoinedBoth: .shstrtab then .strtab)
		}
		ops = append(ops, o)
	}
	run := func(queued, seeded bool) (str, shstr *StrTab, offs []uint32) {
		ctx := &Context{Str: NewStrTab(), ShStr: NewStrTab()}
		if seeded {
			ctx.Str.seed = ctx.ShStr.seed
		}
		ctx.Str.Reserve(1<<16, nil)
		offs = make([]uint32, len(ops))
		for i := range offs {
			offs[i] = 0xdead
		}
		if queued {
			ctx.strq = openStrQueue(nil, nil, ctx.Str, ctx.ShStr)
		}
		for i, o := range ops {
			tab := ctx.Str
			if o.shstr {
				tab = ctx.ShStr
			}
			var dst *uint32
			if o.want {
				dst = &offs[i]
			}
			switch {
			case o.both && queued:
				ctx.addJoinedBoth(ctx.ShStr, ctx.Str, o.pre, o.s)
			case o.both:
				ctx.addStr(ctx.ShStr, strPrefixes[o.pre]+o.s, nil)
				ctx.addStr(ctx.Str, strPrefixes[o.pre]+o.s, nil)
			case queued:
				ctx.addJoinedTo(tab, o.pre, o.s, dst, o.dup)
			default:
				ctx.addStrTo(tab, strPrefixes[o.pre]+o.s, dst, o.dup)
			}
		}
		if queued {
			ctx.strq.close()
			ctx.strq = nil
		}
		return ctx.Str, ctx.ShStr, offs
	}
	// (Both ways with the tables' own seeds and with one seed for both, as
	// a link's tables have: an addition to both is then hashed once.)
	for _, seeded := range []bool{false, true} {
		dStr, dShStr, dOffs := run(false, seeded)
		qStr, qShStr, qOffs := run(true, seeded)
		if !bytes.Equal(dStr.Bytes(), qStr.Bytes()) || !bytes.Equal(dShStr.Bytes(), qShStr.Bytes()) {
			t.Fatalf("one seed %v: the queued tables' bytes differ from those added on the spot", seeded)
		}
		for i := range ops {
			if dOffs[i] != qOffs[i] {
				t.Fatalf("addition %d (%+v): offset %d queued, %d on the spot", i, ops[i], qOffs[i], dOffs[i])
			}
		}
		for _, o := range ops {
			s := strPrefixes[o.pre] + o.s
			if dStr.Ordinal(s) != qStr.Ordinal(s) || dShStr.Ordinal(s) != qShStr.Ordinal(s) {
				t.Fatalf("ordinal of %q differs", s)
			}
		}
	}
}

// TestStrQueueRefusesDirectUse checks that a table whose additions are
// queued refuses its own methods until the queue is closed, and takes them
// again afterwards.
func TestStrQueueRefusesDirectUse(t *testing.T) {
	str := NewStrTab()
	q := openStrQueue(nil, nil, str)
	for name, f := range map[string]func(){
		"Add":     func() { str.Add("x") },
		"AddDup":  func() { str.AddDup("x") },
		"Ordinal": func() { str.Ordinal("x") },
		"Bytes":   func() { str.Bytes() },
		"Reserve": func() { str.Reserve(10, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s ran while the table's additions were queued", name)
				}
			}()
			f()
		}()
	}
	q.push(0, 0, preNone, "x", nil, false)
	q.close()
	if got := str.Add("x"); got != 1 {
		t.Fatalf("after close, Add(x) = %d, want 1 (queued first)", got)
	}
}
