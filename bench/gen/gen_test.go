package gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

const corpus = "../../testdata/corpus/cuda11.8-sm_90"

func load(t *testing.T) *Templates {
	t.Helper()
	tm, err := LoadTemplates(corpus)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func generate(t *testing.T, tm *Templates, cfg Config) []Object {
	t.Helper()
	var objs []Object
	if err := tm.Generate(cfg, func(o Object) error { objs = append(objs, o); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(objs) != cfg.N {
		t.Fatalf("generated %d objects, want %d", len(objs), cfg.N)
	}
	return objs
}

// TestRenameIdentity checks the encoder on its own: with nothing to rename,
// the re-encoded file decodes to the same sections, names, contents and
// symbols, and is no larger (nvcc leaves some slack after .shstrtab).
func TestRenameIdentity(t *testing.T) {
	tm := load(t)
	for name, f := range tm.files {
		b, err := Rename(f, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g, err := elf.Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(b) > len(f.Raw) {
			t.Errorf("%s: re-encoding grew the file (%d -> %d bytes)", name, len(f.Raw), len(b))
		}
		if len(g.Sections) != len(f.Sections) || len(g.Symbols) != len(f.Symbols) {
			t.Fatalf("%s: section or symbol count changed", name)
		}
		for i := range f.Sections {
			o, n := f.Sections[i], g.Sections[i]
			o.NameOff, n.NameOff = 0, 0
			if f.SecName(i) != g.SecName(i) || o.Size != n.Size || !bytes.Equal(o.Data(), n.Data()) {
				t.Errorf("%s: section %d changed", name, i)
			}
		}
		for i := range f.Symbols {
			if f.Symbols[i] != g.Symbols[i] {
				t.Errorf("%s: symbol %d changed", name, i)
			}
		}
	}
}

func TestRename(t *testing.T) {
	tm := load(t)
	f := tm.files["xcall/a.cubin"]
	b, err := Rename(f, map[string]string{"xcall_main": "k", "stage_b": "stage_b_00042"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := elf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Sections) != len(f.Sections) || len(g.Symbols) != len(f.Symbols) {
		t.Fatalf("section/symbol counts changed")
	}
	var syms []string
	for _, s := range g.Symbols {
		syms = append(syms, s.Name)
	}
	for _, want := range []string{"_Z1kPfi", "_Z13stage_b_00042f", ".text._Z1kPfi", ".nv.constant0._Z1kPfi"} {
		if !strings.Contains(strings.Join(syms, " ")+" ", want+" ") {
			t.Errorf("symbol %s missing from %q", want, syms)
		}
	}
	for i := range f.Sections {
		old, nu := &f.Sections[i], &g.Sections[i]
		oldH, _ := f.Shdr(i)
		newH, _ := g.Shdr(i)
		wantName := strings.ReplaceAll(f.SecName(i), "10xcall_main", "1k")
		if g.SecName(i) != wantName {
			t.Errorf("section %d named %q, want %q", i, g.SecName(i), wantName)
		}
		if nu.Type != old.Type || nu.Flags != old.Flags || g.SecFlags(i) != f.SecFlags(i) || newH.Link != oldH.Link || nu.Info != old.Info || nu.Addralign != old.Addralign {
			t.Errorf("section %d header changed", i)
		}
		if h, _ := g.Shdr(i); nu.Addralign > 1 && h.Offset%uint64(nu.Addralign) != 0 {
			t.Errorf("section %d at 0x%x is not %d-aligned", i, h.Offset, nu.Addralign)
		}
		switch {
		case i == int(g.StrtabIndex) || i == int(g.Header.Shstrndx) || i == int(g.SymtabIndex) || nu.Type == elf.SHTCudaPrototype:
		case !bytes.Equal(nu.Data(), old.Data()):
			t.Errorf("contents of %s changed", g.SecName(i))
		}
	}
	for i := range f.Symbols {
		o, n := f.Symbols[i], g.Symbols[i]
		if o.Info != n.Info || o.Other != n.Other || o.Shndx != n.Shndx || o.Value != n.Value || o.Size != n.Size {
			t.Errorf("symbol %d changed beyond its name", i)
		}
	}
	// .nv.prototype's string offsets still name the same prototype strings.
	proto := func(f *elf.File) []string {
		var out []string
		for _, s := range f.Sections {
			if s.Type == elf.SHTCudaPrototype {
				for j := 0; j+8 <= len(s.Data()); j += 8 {
					str, _ := elf.CString(f.Sections[f.StrtabIndex].Data(), le.Uint32(s.Data()[j+4:]))
					out = append(out, str)
				}
			}
		}
		return out
	}
	if a, b := proto(f), proto(g); strings.Join(a, ",") != strings.Join(b, ",") || len(a) == 0 {
		t.Errorf(".nv.prototype strings %q, want %q", b, a)
	}
}

// TestWorkload checks a generated link: every object parses, strong
// definitions are unique, weak definitions are shared, every undefined
// reference is defined by another object, and per-function sections carry
// their function's (renamed) name.
func TestWorkload(t *testing.T) {
	tm := load(t)
	objs := generate(t, tm, Config{N: 300, Seed: 7})
	strong := map[string]string{}
	weak := map[string]int{}
	var undef []string
	for _, o := range objs {
		f, err := elf.Parse(o.Data)
		if err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		funcs := map[string]bool{}
		for _, s := range f.Symbols[1:] {
			switch {
			case s.Bind() == elf.STBLocal:
			case s.Shndx == elf.SHNUndef:
				undef = append(undef, s.Name)
			case s.Bind() == elf.STBWeak:
				weak[s.Name]++
			default:
				if prev, ok := strong[s.Name]; ok {
					t.Errorf("%s defined in %s and %s", s.Name, prev, o.Name)
				}
				strong[s.Name] = o.Name
			}
			if s.Type() == elf.STTFunc && s.Shndx != elf.SHNUndef {
				funcs[s.Name] = true
				if got := f.SecName(int(s.Shndx)); got != ".text."+s.Name {
					t.Errorf("%s: function %s lives in %s", o.Name, s.Name, got)
				}
			}
		}
		for si := range f.Sections {
			for _, p := range []string{".text.", ".nv.info.", ".rela.text.", ".nv.constant0.", ".nv.shared."} {
				if fn, ok := strings.CutPrefix(f.SecName(si), p); ok && !funcs[fn] {
					t.Errorf("%s: section %s names no function of the object", o.Name, f.SecName(si))
				}
			}
		}
	}
	for _, u := range undef {
		if _, ok := strong[u]; !ok && weak[u] == 0 {
			t.Errorf("undefined reference to %s is defined nowhere", u)
		}
	}
	if len(undef) == 0 {
		t.Error("workload has no cross-object references")
	}
	if weak["_Z4polyILi4EEff"] < 2 {
		t.Errorf("weak poly<4> defined %d times, want it shared", weak["_Z4polyILi4EEff"])
	}
}

func TestDeterministic(t *testing.T) {
	tm := load(t)
	a := generate(t, tm, Config{N: 120, Seed: 3})
	b := generate(t, tm, Config{N: 120, Seed: 3})
	c := generate(t, tm, Config{N: 120, Seed: 4})
	same := true
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Fatalf("object %d differs between two runs with the same seed", i)
		}
		same = same && bytes.Equal(a[i].Data, c[i].Data)
	}
	if same {
		t.Error("seeds 3 and 4 gave the same workload")
	}
}

// TestNvlink links a generated workload with the real nvlink, from each
// bundled corpus (sm_90: RELA inputs; sm_80: REL inputs, whose constant-bank
// offsets change from object to object).
func TestNvlink(t *testing.T) {
	nvlink, err := exec.LookPath("nvlink")
	if err != nil {
		t.Skip("nvlink not on PATH")
	}
	for _, c := range []struct{ corpus, arch string }{
		{corpus, Arch},
		{"../../testdata/corpus/cuda11.8-sm_80", "sm_80"},
	} {
		t.Run(c.arch, func(t *testing.T) {
			t.Parallel()
			testNvlink(t, nvlink, c.corpus, c.arch)
		})
	}
}

func testNvlink(t *testing.T, nvlink, corpus, arch string) {
	dir, names := writeWorkload(t, corpus, 200)
	b := nvlinkBytes(t, nvlink, arch, dir, names)
	f, err := elf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Header.Type != elf.ETExec {
		t.Errorf("nvlink output has e_type %d", f.Header.Type)
	}
	// warplink links the same workload into the same bytes.
	if w := warplinkBytes(t, arch, dir, names); !bytes.Equal(w, b) {
		t.Errorf("warplink output (%d bytes) differs from nvlink's (%d bytes)", len(w), len(b))
	}
}

// writeWorkload writes an n-object workload from the templates of corpus
// into a temporary folder and returns it with the objects' names.
func writeWorkload(t *testing.T, corpus string, n int) (dir string, names []string) {
	t.Helper()
	tm, err := LoadTemplates(corpus)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if names, _, err = tm.WriteDir(dir, Config{N: n, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return dir, names
}

// nvlinkBytes links inputs (in dir) with the real nvlink for arch, which
// must succeed silently, and returns the output's bytes.
func nvlinkBytes(t *testing.T, nvlink, arch, dir string, inputs []string) []byte {
	t.Helper()
	out := filepath.Join(dir, "nvlink.cubin")
	cmd := exec.Command(nvlink, append([]string{"-arch=" + arch, "-o", out}, inputs...)...)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil || len(msg) != 0 {
		t.Fatalf("nvlink %v: %v\n%s", inputs[:min(len(inputs), 2)], err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// warplinkBytes links inputs (in dir) with merge.Link for arch, which must
// succeed, and returns the output's bytes.
func warplinkBytes(t *testing.T, arch, dir string, inputs []string) []byte {
	t.Helper()
	out := filepath.Join(dir, "ours.cubin")
	var paths []string
	for _, in := range inputs {
		paths = append(paths, filepath.Join(dir, in))
	}
	var stderr bytes.Buffer
	if rc := merge.Link(&merge.Options{Flags: linkflags.Flags{Arch: arch, Output: out, Inputs: paths}}, &bytes.Buffer{}, &stderr, "warplink"); rc != 0 {
		t.Fatalf("warplink %v: exit %d: %s", inputs[:min(len(inputs), 2)], rc, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRemapSuffix checks offsets into the middle of a string (a suffix
// shared with a longer name): kept where renaming left the suffix as it
// was, refused where it changed it.
func TestRemapSuffix(t *testing.T) {
	m := &strMap{starts: []uint32{0, 1, 12}, ents: []strEnt{
		{0, 0, 0, "", ""},
		{10, 1, 14, ".text.k_42", ".text.k_42_a0b"}, // renamed at its end
		{9, 16, 9, ".rela.foo", ".rela.foo"},        // left alone
	}}
	for _, tc := range []struct {
		off  uint32
		want uint32
		ok   bool
	}{
		{1, 1, true},   // the start of a renamed string
		{7, 0, false},  // "k_42": its suffix changed
		{12, 16, true}, // the start of a string left alone
		{17, 21, true}, // ".foo" inside ".rela.foo"
		{11, 15, true}, // the terminating NUL of ".text.k_42": "" is a suffix of anything
		{99, 0, false}, // past the table
	} {
		got, err := m.remap(tc.off)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("remap(%d) = %d, %v; want %d, ok %v", tc.off, got, err, tc.want, tc.ok)
		}
	}
}
