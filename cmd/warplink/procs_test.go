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
	"github.com/warplink/warplink/merge"
)

// TestProcsFor checks the Ps a link gets from its inputs' estimated size.
func TestProcsFor(t *testing.T) {
	const each = 5427 // bytes: a generated object's average
	cases := []struct {
		name  string
		est   int64
		procs int
		want  int
	}{
		{"one core", 1000 * each, 1, 1},
		{"two cores: left alone", 1000 * each, 2, 2},
		{"1,000 objects", 1000 * each, 16, 3},
		{"2,000 objects", 2000 * each, 16, 5},
		{"4,000 objects: 9 of 16", 4000 * each, 16, 9},
		{"7,000 objects: 15 of 16", 7000 * each, 16, 15},
		{"10,000 objects: every core", 10000 * each, 16, 16},
		{"100,000 objects", 100000 * each, 64, 64},
		{"small: at least two", 80 * 4 << 10, 16, minProcs},
		{"nothing found", 0, 16, minProcs},
	}
	for _, c := range cases {
		if got := procsFor(c.est, c.procs); got != c.want {
			t.Errorf("%s: %d Ps, want %d", c.name, got, c.want)
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
		if got := inputEstimate(&merge.Options{Inputs: inputs(c.n)}, size); got != c.want {
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
	o := &merge.Options{Inputs: []string{filepath.Join(dir, "a.cubin"), "-lbig", "-lmissing"}, LibDirs: []string{dir}}
	if got, want := inputEstimate(o, fileSize), int64(10<<20+1<<10); got != want {
		t.Errorf("with a -l archive: %d bytes, want %d", got, want)
	}
	o.LibDirs = nil
	if got, want := inputEstimate(o, fileSize), int64(1<<10); got != want {
		t.Errorf("the archive not found: %d bytes, want %d", got, want)
	}
}

// TestSizeMemo checks that sizeMemo asks about each path once and gives
// the same answers as the function it remembers, failures included, and
// that tinyLink then inputEstimate through one memo stat each input once.
func TestSizeMemo(t *testing.T) {
	asked := map[string]int{}
	size := func(path string) (int64, bool) {
		asked[path]++
		if path == "missing" {
			return 0, false
		}
		return int64(len(path)), true
	}
	memo := sizeMemo(size)
	for range 3 {
		for _, p := range []string{"a", "bb", "missing"} {
			n, ok := memo(p)
			if wn, wok := size(p); n != wn || ok != wok {
				t.Errorf("%s: %d %v, want %d %v", p, n, ok, wn, wok)
			}
			asked[p]-- // (the check's own question)
		}
	}
	for p, n := range asked {
		if n != 1 {
			t.Errorf("%s asked %d times, want once", p, n)
		}
	}

	dir := t.TempDir()
	var inputs []string
	for i := range 3 {
		name := filepath.Join(dir, fmt.Sprintf("o%d.cubin", i))
		if err := os.WriteFile(name, make([]byte, tinyBytes), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, name)
	}
	stats := 0
	memo = sizeMemo(func(path string) (int64, bool) { stats++; return fileSize(path) })
	o := &merge.Options{Inputs: inputs}
	if tinyLink(o, memo) {
		t.Fatalf("%d bytes: a tiny link", 3*tinyBytes)
	}
	if got, want := inputEstimate(o, memo), int64(3*tinyBytes); got != want {
		t.Errorf("estimate %d, want %d", got, want)
	}
	if stats != len(inputs) {
		t.Errorf("%d stat calls for %d inputs, want one each", stats, len(inputs))
	}
}

// TestSmallLinkProcs links 300 generated objects through run on 16 Ps: the
// link runs on procsFor's fewer (seen from the passes' hook), GOMAXPROCS
// is 16 again afterwards, and the bytes are those of the same link with
// GOMAXPROCS set by the user (which procsFor leaves alone).
func TestSmallLinkProcs(t *testing.T) {
	defaultHeapSettings(t)
	if os.Getenv("GOMAXPROCS") != "" {
		t.Skip("GOMAXPROCS set")
	}
	tm, err := gen.LoadTemplates(filepath.Join("..", "..", "testdata", "corpus", "cuda11.8-sm_90"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	names, _, err := tm.WriteDir(dir, gen.Config{N: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, n := range names {
		inputs = append(inputs, filepath.Join(dir, n))
	}
	want := procsFor(inputEstimate(&merge.Options{Inputs: inputs}, fileSize), 16)
	if want >= 16 || want < minProcs {
		t.Fatalf("300 objects: procsFor %d, want fewer than 16", want)
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
