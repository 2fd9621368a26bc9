package merge

import (
	"bytes"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/linkflags"
)

func TestReleaseFor(t *testing.T) {
	for v, want := range map[int]string{100: "11.8", 115: "11.8", 118: "11.8", 119: "11.8", 120: "12.4", 124: "12.4",
		125: "12.5", 126: "12.5", 128: "12.5", 130: "13.0", 131: "13.0", 140: "13.0"} {
		if got := releaseFor(v).Name; got != want {
			t.Errorf("releaseFor(%d) = %s, want %s", v, got, want)
		}
	}
	for s, want := range map[string]int{"12.5": 125, "11.8": 118, "125": 125, "13.0": 130, "x": 0, "12.x": 0, "1.10": 0} {
		if got, _ := linkflags.ParseVersion(s); got != want {
			t.Errorf("ParseVersion(%q) = %d, want %d", s, got, want)
		}
	}
}

// cubinOf is a cubin header of toolkit v (e_version), SM sm.
func cubinOf(v uint32, sm int) *elf.File {
	f := &elf.File{Header: defaultHeader(sm)}
	f.Header.Version = v
	return f
}

// TestChooseRelease: the newest input's toolkit decides; one newer than
// every known release links as the nearest with a warning; a named
// release refuses newer inputs.
func TestChooseRelease(t *testing.T) {
	for _, c := range []struct {
		named    string
		versions []uint32
		want     string
		diag     string
	}{
		{"", []uint32{118, 118}, "11.8", ""},
		{"", []uint32{118, 125}, "12.5", ""},
		{"", []uint32{123}, "12.4", ""},
		{"", []uint32{118, 124}, "12.4", ""},
		{"", []uint32{124, 125}, "12.5", ""},
		{"12.4", []uint32{124, 125}, "12.4", "nvlink fatal   : Input file 'f1' newer than toolkit (125 vs 124)\n"},
		{"", []uint32{128}, "12.5", "nvlink warning : inputs built by CUDA 12.8, newer than any nvlink warplink knows: linking as nvlink 12.5\n"},
		{"12.5", []uint32{118}, "12.5", ""},
		{"11.8", []uint32{118, 125}, "11.8", "nvlink fatal   : Input file 'f1' newer than toolkit (125 vs 118)\n"},
		{"12.x", []uint32{118}, "11.8", "nvlink fatal   : Value '12.x' is not defined for option 'nvlink-version'\n"},
	} {
		bag := &diag.Bag{}
		ctx := newContext(&Options{Flags: linkflags.Flags{NvlinkVersion: c.named}, Tuning: Tuning{PlainMemory: true}}, bag, "nvlink")
		for i, v := range c.versions {
			ctx.Objs = append(ctx.Objs, &Obj{ID: i, Name: "f" + string(rune('0'+i)), F: cubinOf(v, 80)})
		}
		chooseRelease(ctx)
		var b bytes.Buffer
		bag.Print(&b, "nvlink")
		if ctx.Rel.Name != c.want || b.String() != c.diag {
			t.Errorf("%q %v: nvlink %s, %q; want %s, %q", c.named, c.versions, ctx.Rel.Name, b.String(), c.want, c.diag)
		}
	}
}
