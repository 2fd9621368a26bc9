package merge

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/hostobj"
	"github.com/warplink/warplink/internal/linkflags"
)

// globRef is globMatch by dynamic programming over every prefix pair (a
// reference, quadratic): at[j] reports whether the pattern so far matches
// name[:j].
func globRef(p, name string) bool {
	at := make([]bool, len(name)+1)
	at[0] = true
	for i := 0; i < len(p); i++ {
		next := make([]bool, len(name)+1)
		for j := 0; j <= len(name); j++ {
			switch {
			case p[i] == '*':
				next[j] = at[j] || j > 0 && next[j-1]
			case j > 0:
				next[j] = at[j-1] && p[i] == name[j-1]
			}
		}
		at = next
	}
	return at[len(name)]
}

// FuzzHostKernelMatch checks the matching of kernel names against the host
// objects' patterns (.nvHRKE and .nvHRKI contents: NUL-separated): the
// set, indexed by literal prefix, matches a name when one of the patterns
// does, and globMatch agrees with a reference matcher (globRef).
func FuzzHostKernelMatch(f *testing.F) {
	objs, _ := filepath.Glob("../testdata/crafted/host-info*/*.o")
	if len(objs) == 0 {
		f.Fatal("no host-info objects")
	}
	for _, p := range objs {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		o, err := hostobj.Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		for _, k := range o.HostKernels {
			f.Add(strings.Join(o.HostKernels, "\x00"), strings.ReplaceAll(k, "*", "Pfi"))
		}
	}
	f.Add("_Z2tk*\x00a*b*c\x00**x", "aXXbYYbZZc")
	f.Fuzz(func(t *testing.T, sections, name string) {
		var patterns []string
		for _, p := range strings.Split(sections, "\x00") {
			if p != "" {
				patterns = append(patterns, p)
			}
		}
		if len(patterns) == 0 {
			return
		}
		ctx := &Context{Opts: &Options{}, Objs: []*Obj{{rare: &objRare{host: objHost{kernels: patterns[:len(patterns)/2]}}}, {rare: &objRare{host: objHost{kernels: patterns[len(patterns)/2:]}}}}}
		set := hostKernels(ctx)
		if set == nil {
			t.Fatal("no host kernel set for objects naming kernels")
		}
		want := false
		for _, p := range patterns {
			m := globMatch(p, name)
			if m != globRef(p, name) {
				t.Fatalf("globMatch(%q, %q) = %v, the reference %v", p, name, m, !m)
			}
			want = want || m
		}
		if got := set.match(name); got != want {
			t.Fatalf("match(%q) = %v, want %v", name, got, want)
		}
	})
}

// FuzzToolkitOf checks the toolkit version read from a CUDA 13 cubin's
// .note.nv.tkinfo (ptxas's line, "release 13.0, V13.0.88"): 130 or a
// later release the note names, never an earlier one nor one past the
// grammar of linkflags.ParseVersion.
func FuzzToolkitOf(f *testing.F) {
	cubins, _ := filepath.Glob("../testdata/corpus/cuda13.0-sm_90/*/*.cubin")
	if len(cubins) == 0 {
		f.Fatal("no CUDA 13.0 cubins")
	}
	var base *elf.File // a CUDA 13 cubin, its note's contents replaced below
	noteSec := -1
	for _, p := range cubins[:4] {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		ef, err := elf.Parse(b)
		if err != nil {
			f.Fatal(err)
		}
		if toolkitOf(ef) != 130 {
			f.Fatalf("%s: toolkit %d, want 130", p, toolkitOf(ef))
		}
		for i := range ef.Sections {
			if ef.SecName(i) == ".note.nv.tkinfo" {
				f.Add(ef.Sections[i].Data())
				base, noteSec = ef, i
			}
		}
	}
	if base == nil {
		f.Fatal("no .note.nv.tkinfo in the CUDA 13.0 cubins")
	}
	f.Add([]byte("release 14.-3, V14.0.1")) // (read as 13.7 before ParseVersion checked the digits)
	f.Fuzz(func(t *testing.T, note []byte) {
		ef := *base
		ef.Sections = slices.Clone(base.Sections)
		ef.Sections[noteSec].Size = uint64(len(note))
		ef.Sections[noteSec].SetData(note)
		n := toolkitOf(&ef)
		if n == 130 {
			return
		}
		_, rest, _ := strings.Cut(string(note), "release ")
		v, _, _ := strings.Cut(rest, ",")
		if m, ok := linkflags.ParseVersion(v); n < 130 || !ok || m != n {
			t.Fatalf("toolkit %d from %q", n, note)
		}
	})
}
