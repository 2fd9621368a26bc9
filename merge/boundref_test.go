package merge

import (
	"slices"
	"testing"
)

// TestBoundOrder checks the slot order against nvlink 11.8's, as observed
// for one kernel using n texture references t0 … t(n-1), declared in that
// order (testdata/crafted/bound-references-order holds n = 9): nvlink lists
// them latest first, and lays them out from the lowest offset as below.
func TestBoundOrder(t *testing.T) {
	observed := map[int][]int32{
		1: {0},
		2: {1, 0},
		3: {0, 2, 1},
		4: {1, 3, 0, 2},
		5: {4, 0, 2, 1, 3},
		6: {5, 1, 3, 4, 0, 2},
		7: {4, 0, 6, 2, 5, 1, 3},
		8: {5, 1, 7, 3, 4, 0, 6, 2},
		9: {0, 8, 4, 6, 2, 5, 1, 7, 3},
	}
	for n, want := range observed {
		listed := make([]int32, n)
		for k := range listed {
			listed[k] = int32(n - 1 - k) // latest first
		}
		if got := boundOrder(listed); !slices.Equal(got, want) {
			t.Errorf("%d references: order %v, nvlink's %v", n, got, want)
		}
	}
	if got := boundOrder(nil); len(got) != 0 {
		t.Errorf("no references: %v", got)
	}
}
