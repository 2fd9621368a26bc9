package merge

import (
	"fmt"
	"testing"

	"github.com/warplink/warplink/shard"
)

// TestNameIndexGrows: an index sized for far fewer names than it gets
// finds every name's record after growing, also when hashes collide.
func TestNameIndexGrows(t *testing.T) {
	for _, sameHash := range []bool{false, true} {
		x := newNameIndex(1)
		var recs []shardRec
		hash := func(name string) uint32 {
			if sameHash {
				return 7 // (every name in one probe chain)
			}
			return shard.Murmur3String(name)
		}
		n := 5000
		if sameHash {
			n = 300
		}
		for i := range n {
			name := fmt.Sprintf("name%d", i)
			slot := x.find(recs, name, hash(name))
			if x.rec(slot) >= 0 {
				t.Fatalf("%s found before it was filed", name)
			}
			recs = append(recs, shardRec{name: name})
			x.insert(slot, hash(name), int32(len(recs)-1))
		}
		if x.n != n || x.n*10 > len(x.slots)*7 {
			t.Fatalf("%d names in %d slots (n %d)", n, len(x.slots), x.n)
		}
		for i := range n {
			name := fmt.Sprintf("name%d", i)
			if k := x.rec(x.find(recs, name, hash(name))); k != int32(i) {
				t.Fatalf("%s: record %d, want %d", name, k, i)
			}
			x.prefetch(hash(name))
			x.prefetchRec(recs, hash(name))
		}
		if k := x.rec(x.find(recs, "absent", hash("absent"))); k >= 0 {
			t.Fatalf("absent name found as record %d", k)
		}
	}
}
