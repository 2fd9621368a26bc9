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
// whole name.
func TestStrQueueSameAsDirect(t *testing.T) {
	type op struct {
		shstr, dup, want bool
		pre              strPrefix
		s                string
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
		ops = append(ops, op{shstr: rng.IntN(2) == 0, dup: rng.IntN(20) == 0, want: rng.IntN(3) > 0, pre: pre, s: s})
	}
	run := func(queued bool) (str, shstr *StrTab, offs []uint32) {
		ctx := &Context{Str: NewStrTab(), ShStr: NewStrTab()}
		ctx.Str.Reserve(1<<16, nil)
		offs = make([]uint32, len(ops))
		for i := range offs {
			offs[i] = 0xdead
		}
		if queued {
			ctx.strq = openStrQueue(nil, ctx.Str, ctx.ShStr)
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
			if queued {
				ctx.addJoinedTo(tab, o.pre, o.s, dst, o.dup)
			} else {
				ctx.addStrTo(tab, strPrefixes[o.pre]+o.s, dst, o.dup)
			}
		}
		if queued {
			ctx.strq.close()
			ctx.strq = nil
		}
		return ctx.Str, ctx.ShStr, offs
	}
	dStr, dShStr, dOffs := run(false)
	qStr, qShStr, qOffs := run(true)
	if !bytes.Equal(dStr.Bytes(), qStr.Bytes()) || !bytes.Equal(dShStr.Bytes(), qShStr.Bytes()) {
		t.Fatal("the queued tables' bytes differ from those added on the spot")
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

// TestStrQueueRefusesDirectUse checks that a table whose additions are
// queued refuses its own methods until the queue is closed, and takes them
// again afterwards.
func TestStrQueueRefusesDirectUse(t *testing.T) {
	str := NewStrTab()
	q := openStrQueue(nil, str)
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
	q.push(0, preNone, "x", nil, false)
	q.close()
	if got := str.Add("x"); got != 1 {
		t.Fatalf("after close, Add(x) = %d, want 1 (queued first)", got)
	}
}
