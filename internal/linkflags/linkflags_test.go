package linkflags

import "testing"

// TestTarget checks the SM number and virtual flag read from -arch.
func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		arch    string
		sm      int
		virtual bool
	}{
		{"sm_90", 90, false},
		{"sm_90a", 90, false},
		{"sm_100f", 100, false},
		{"compute_80", 80, true},
		{"compute_90a", 90, true},
		{"lto_90", 0, false},
		{"sm_", 0, false},
		{"compute_x", 0, false},
		{"compute_-5", 0, false},
		{"", 0, false},
	} {
		f := Flags{Arch: tc.arch}
		if sm, v := f.Target(); sm != tc.sm || v != tc.virtual {
			t.Errorf("Target(%q) = %d, %v; want %d, %v", tc.arch, sm, v, tc.sm, tc.virtual)
		}
	}
}
