package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

// FuzzLink links one fuzzed cubin beside a good one through the whole
// pipeline (merge.Link, as the CLI calls it). Whatever the input, the link
// must not panic; a failed link must explain itself and leave no output; a
// successful one must write an executable cubin.
func FuzzLink(f *testing.F) { fuzzLink(f, corpusDir, "sm_90", goodCubin) }

// FuzzLinkSM80 is FuzzLink over the sm_80 corpus (REL relocations with
// their addends in the instructions).
func FuzzLinkSM80(f *testing.F) {
	fuzzLink(f, corpusSM80, "sm_80", corpusSM80+"/managed/b.cubin")
}

// FuzzLink13 is FuzzLink over the corpus built with CUDA 13.0 (notes,
// call graphs with the list of possible callees, the new ELF ABI). Its
// seeds run with every `go test`; under -fuzz (Go 1.26) the coordinator
// stopped handing out inputs after a few hundred runs, while no run took
// over a second, so `make fuzz` leaves it out. (FuzzLink's count too can
// stand still for the rest of a run while both workers go on linking new
// inputs every few milliseconds, as checked by having each input written
// to a file: golang/go#51484.)
func FuzzLink13(f *testing.F) { fuzzLink(f, corpus13, "sm_90", corpus13+"/xcall/b.cubin") }

func fuzzLink(f *testing.F, corpusDir, arch, goodCubin string) {
	seeds, _ := filepath.Glob(corpusDir + "/*/*.cubin")
	bad, _ := filepath.Glob(malformedDir + "/*.cubin")
	if arch == "sm_90" {
		// Bound texture and surface references (merge/boundref.go).
		bound, _ := filepath.Glob("../../testdata/crafted/bound-references*/*.cubin")
		seeds = append(seeds, bound...)
	}
	for _, p := range append(seeds, bad...) {
		if strings.HasPrefix(filepath.Base(p), "ref") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	good, err := filepath.Abs(goodCubin)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "fuzz.cubin")
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.cubin")
		// (A forged alignment may ask for a file of GiBs, as nvlink writes
		// it: refused above 64 MiB here, so that fuzzing stays fast.)
		opts := &merge.Options{
			Flags:    linkflags.Flags{Arch: arch, Machine64: true, Inputs: []string{in, good}, Output: out},
			Warplink: linkflags.Warplink{Threads: 1},
			Tuning:   merge.Tuning{MaxOutputSize: 64 << 20},
		}
		var stderr bytes.Buffer
		code := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink")
		res, err := os.ReadFile(out)
		if code != 0 {
			if stderr.Len() == 0 {
				t.Fatalf("link failed (%d) without a diagnostic", code)
			}
			if err == nil {
				t.Fatalf("failed link left %s behind", out)
			}
			return
		}
		if err != nil {
			t.Fatalf("link succeeded without output: %v", err)
		}
		ef, err := elf.Parse(res)
		if err != nil {
			t.Fatalf("link wrote a bad cubin: %v", err)
		}
		if ef.Header.Type != elf.ETExec || ef.Header.Machine != elf.EMCUDA {
			t.Fatalf("link wrote type %d machine %d", ef.Header.Type, ef.Header.Machine)
		}
	})
}
