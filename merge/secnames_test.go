package merge

import (
	"fmt"
	"testing"
)

// TestSecNames checks the table against a map through growth, names
// that share a hash, and both filing rules (first keeps, last takes).
func TestSecNames(t *testing.T) {
	t.Parallel()
	var tab secNames // (the zero table works: it grows on first use)
	var secs []*OutSec
	want := map[string]int32{}
	hashOf := func(name string) uint32 {
		if len(name)%3 == 0 {
			return 7 // (a third of the names collide on one hash)
		}
		return secNameHash(name)
	}
	add := func(name string, last bool) {
		id := int32(len(secs))
		secs = append(secs, &OutSec{ID: id, Name: name})
		h := hashOf(name)
		if _, ok := want[name]; ok && !last {
			if _, ok := tab.find(secs, h, name); !ok {
				t.Fatalf("find(%q) before refiling: missing", name)
			}
			return
		}
		tab.set(secs, h, id)
		want[name] = id
	}
	for i := range 3000 {
		add(fmt.Sprintf(".text.f%d", i%1700), i%5 == 0)
	}
	if tab.n != len(want) || 2*tab.n > len(tab.slots) {
		t.Fatalf("%d names in %d slots (in use %d): want %d, at most half full", len(want), len(tab.slots), tab.n, len(want))
	}
	for name, id := range want {
		if got, ok := tab.find(secs, hashOf(name), name); !ok || got != id {
			t.Errorf("find(%q) = %d, %v; want %d", name, got, ok, id)
		}
	}
	for _, name := range []string{".text.f1700", ".text.", "", ".text.f17000"} {
		if got, ok := tab.find(secs, hashOf(name), name); ok || got != 0 {
			t.Errorf("find(%q) = %d, %v; want 0, false", name, got, ok)
		}
	}
	if got, ok := (&secNames{}).find(secs, 1, "x"); ok || got != 0 {
		t.Errorf("empty table: find = %d, %v", got, ok)
	}
}

// TestSecNamesContext checks the Context's lookups: setSecName gives a
// name to the last section filed under it, secNamed finds it.
func TestSecNamesContext(t *testing.T) {
	t.Parallel()
	ctx := &Context{}
	for i, name := range []string{".nv.global", ".nv.shared.k", ".nv.shared.k"} {
		ctx.Secs = append(ctx.Secs, &OutSec{ID: int32(i), Name: name})
		ctx.setSecName(int32(i))
	}
	for name, want := range map[string]int32{".nv.global": 0, ".nv.shared.k": 2} {
		if got, ok := ctx.secNamed(name); !ok || got != want {
			t.Errorf("secNamed(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
	if got, ok := ctx.secNamed(".nv.constant0"); ok || got != 0 {
		t.Errorf("secNamed(.nv.constant0) = %d, %v; want 0, false", got, ok)
	}
}
