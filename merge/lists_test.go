package merge

import (
	"slices"
	"testing"
)

// TestLists groups values by key in the order they are put, including
// keys with none, and answers nothing for keys beyond the range.
func TestLists(t *testing.T) {
	type kv struct{ k, v int32 }
	in := []kv{{2, 20}, {0, 1}, {2, 21}, {4, 40}, {0, 2}, {2, 22}}
	l := newLists[int32](5)
	for _, p := range in {
		l.count(p.k)
	}
	if !l.counted(2) || l.counted(1) {
		t.Fatal("counted: wrong keys")
	}
	l.place()
	for _, p := range in {
		l.put(p.k, p.v)
	}
	l.done()
	want := map[int32][]int32{0: {1, 2}, 1: nil, 2: {20, 21, 22}, 3: nil, 4: {40}}
	for k, w := range want {
		if got := l.of(k); !slices.Equal(got, w) {
			t.Errorf("key %d: %v, want %v", k, got, w)
		}
	}
	if l.of(5) != nil || l.of(-1) != nil {
		t.Error("keys out of range have values")
	}
	// A list's capacity ends with it: appending to one cannot overwrite
	// the next.
	if got := l.of(0); cap(got) != len(got) {
		t.Errorf("key 0: capacity %d for %d values", cap(got), len(got))
	}
}
