package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf/hostobj"
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
		ctx := &Context{Opts: &Options{}, Objs: []*Obj{{hostKernels: patterns[:len(patterns)/2]}, {hostKernels: patterns[len(patterns)/2:]}}}
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
