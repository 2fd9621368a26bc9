package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/warplink/warplink/bench/gen"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

// TestProcsFor checks the Ps a link gets from its inputs' estimated size,
// as properties: never more than there are, at least minProcs of them
// (all of one or two), more for more input, and every one of up to 16 for
// 10,000 generated objects.
func TestProcsFor(t *testing.T) {
	const each = 5427 // bytes: a generated object's average
	for _, procs := range []int{1, 2, 3, 16, 64} {
		last := 0
		for _, objects := range []int64{0, 1, 100, 1000, 2000, 4000, 7000, 10000, 100000} {
			got := procsFor(objects*each, procs)
			if got > procs || got < min(minProcs, procs) || got < last {
				t.Errorf("%d objects on %d cores: %d Ps (%d for fewer objects)", objects, procs, got, last)
			}
			if objects >= 10000 && procs <= 16 && got != procs {
				t.Errorf("%d objects on %d cores: %d Ps, want all", objects, procs, got)
			}
			last = got
		}
		if procs >= 16 && procsFor(1000*each, procs) == procs {
			t.Errorf("1,000 objects take every one of %d cores", procs)
		}
	}
}

// TestInputEstimate checks the estimate of the inputs' size, and that it
// stats a sample, not every input.
func TestInputEstimate(t *testing.T) {
	inputs := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("o%06d.cubin", i)
		}
		return s
	}
	cases := []struct {
		name      string
		n         int
		each      int64 // bytes per input
		want      int64
		maxStats  int
		missingAt int // an input that cannot be stat'ed (-1: none)
	}{
		{"none", 0, 1, 0, 0, -1},
		{"few: every one", 8, 4 << 20, 32 << 20, 8, -1},
		{"1,000: a sample", 1000, 5427, 5427000, procsSample, -1},
		{"100,000: a sample", 100000, 5427, 542700000, procsSample, -1},
		{"a missing input counts nothing", 2, 3 << 20, 3 << 20, 2, 1},
	}
	for _, c := range cases {
		stats := 0
		size := func(path string) (int64, bool) {
			stats++
			if c.missingAt >= 0 && path == fmt.Sprintf("o%06d.cubin", c.missingAt) {
				return 0, false
			}
			return c.each, true
		}
		if got := inputEstimate(&merge.Options{Flags: linkflags.Flags{Inputs: inputs(c.n)}}, size); got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, got, c.want)
		}
		if stats > c.maxStats {
			t.Errorf("%s: %d stat calls, want at most %d", c.name, stats, c.maxStats)
		}
	}
}

// TestInputEstimateLibraries finds -l libraries in the library
// directories, as read does, and sizes the real files.
func TestInputEstimateLibraries(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "libbig.a"), make([]byte, 10<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.cubin"), make([]byte, 1<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	o := &merge.Options{Flags: linkflags.Flags{Inputs: []string{filepath.Join(dir, "a.cubin"), "-lbig", "-lmissing"}, LibDirs: []string{dir}}}
	if got, want := inputEstimate(o, fileSize), int64(10<<20+1<<10); got != want {
		t.Errorf("with a -l archive: %d bytes, want %d", got, want)
	}
	o.LibDirs = nil
	if got, want := inputEstimate(o, fileSize), int64(1<<10); got != want {
		t.Errorf("the archive not found: %d bytes, want %d", got, want)
	}
}

// TestSmallLinkProcs links about 1,000 generated objects (past
// lightBytes) through run on 16 Ps: the link runs on procsFor's fewer
// (seen from the passes' hook), GOMAXPROCS is 16 again afterwards, and the
// bytes are those of the same link with GOMAXPROCS set by the user (which
// procsFor leaves alone).
func TestSmallLinkProcs(t *testing.T) {
	defaultHeapSettings(t)
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS set")
	}
	inputs := generated(t, 1000).inputs
	want := procsFor(inputEstimate(&merge.Options{Flags: linkflags.Flags{Inputs: inputs}}, fileSize), 16)
	if want >= 16 || want < minProcs {
		t.Fatalf("1,000 objects: procsFor %d, want fewer than 16", want)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	var seen []int
	defer func(old func(string)) { memTrace = old }(memTrace)
	memTrace = func(string) { seen = append(seen, runtime.GOMAXPROCS(0)) }
	link := func(out string) []byte {
		args := append([]string{"warplink", "-arch=" + gen.Arch, "-o", out}, inputs...)
		if _, errs, code := runArgs(args...); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	capped := link(filepath.Join(t.TempDir(), "capped.cubin"))
	if len(seen) == 0 || slices.ContainsFunc(seen, func(p int) bool { return p != want }) {
		t.Errorf("Ps during the link: %v, want %d", seen, want)
	}
	if got := runtime.GOMAXPROCS(0); got != 16 {
		t.Errorf("GOMAXPROCS %d after the link, want 16", got)
	}
	seen = nil
	t.Setenv("GOMAXPROCS", "16")
	full := link(filepath.Join(t.TempDir(), "full.cubin"))
	if len(seen) == 0 || slices.ContainsFunc(seen, func(p int) bool { return p != 16 }) {
		t.Errorf("Ps with GOMAXPROCS set: %v, want 16", seen)
	}
	if !bytes.Equal(capped, full) {
		t.Errorf("outputs differ: %d bytes on %d Ps, %d on 16", len(capped), want, len(full))
	}
}
