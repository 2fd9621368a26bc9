package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/cli"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/merge"
)

// corpus13 is the corpus built with CUDA 13.0 for sm_90 (build.sh on the
// GPU machine), with nvlink 13.0's outputs. warplink links these inputs
// as its nvlink 13.0 release (merge/release.go), and its outputs are
// byte-identical to nvlink 13.0's but for the links differing13 names,
// which are checked for what the GPU runs instead (equivalent13): the
// same sections, the code and data in them byte for byte, the same
// functions.
const corpus13 = "../../testdata/corpus/cuda13.0-sm_90"

// libdir13 holds CUDA 13.0's libcudadevrt.a (from the GPU machine's
// toolkit); the programs that link it are skipped without it.
var libdir13, _ = filepath.Abs("../../testdata/cudalib13")

// recordedLibDir13 is the -L directory nvcc 13.0 gave nvlink when the
// corpus was recorded, which build.sh wrote as @CUDA_LIBDIR@ in the link's
// arguments: nvlink 13.0 names it in its note in .note.nv.tkinfo, so the
// note is made from the arguments with it (the library is still read from
// libdir13).
const recordedLibDir13 = "/usr/local/cuda-13.0/bin/../lib64"

// differing13 are the links whose output is not byte-identical to nvlink
// 13.0's, with what differs; each is checked with equivalent13 (none:
// every link of the corpus is byte-identical).
var differing13 = map[string]string{}

// toolOptions13 are the options nvlink 13.0 recorded in its note for the
// link of args file c in dir (Options.ToolOptions), from the arguments as
// given on the GPU machine.
func toolOptions13(t *testing.T, dir, c string) string {
	raw, err := os.ReadFile(filepath.Join(dir, c))
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := cli.Parse(strings.Fields(strings.ReplaceAll(string(raw), "@CUDA_LIBDIR@", recordedLibDir13)), os.ReadFile, &diag.Bag{})
	if err != nil {
		t.Fatal(err)
	}
	return cmd.Opts.ToolOptions
}

// TestCorpusNvlink13 links the CUDA 13.0 corpus and checks each output
// against nvlink 13.0's: byte for byte, or, for the links differing13
// names, for everything the GPU loads and runs.
func TestCorpusNvlink13(t *testing.T) {
	t.Parallel()
	names, dirs := corpusPrograms(t, corpus13)
	checked, skipped, identical := 0, 0, 0
	for k, name := range names {
		dir := dirs[k]
		for _, c := range []struct{ args, ref string }{{"link.args", "ref"}, {"link_dc.args", "ref_dc"}} {
			t.Run(name+"/"+c.ref, func(t *testing.T) {
				args, _ := os.ReadFile(filepath.Join(dir, c.args))
				if strings.Contains(string(args), "-lcudadevrt") {
					if _, err := os.Stat(filepath.Join(libdir13, "libcudadevrt.a")); err != nil {
						skipped++
						t.Skip("CUDA 13.0's libcudadevrt.a is not bundled")
					}
				}
				out := filepath.Join(t.TempDir(), "out.cubin")
				opts := linkArgs(t, dir, c.args, out)
				for i, d := range opts.LibDirs {
					if d == libdir {
						opts.LibDirs[i] = libdir13
					}
				}
				opts.ToolOptions = toolOptions13(t, dir, c.args)
				var stderr bytes.Buffer
				rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink")
				nvrc, _ := os.ReadFile(filepath.Join(dir, c.ref+".rc"))
				if log, _ := os.ReadFile(filepath.Join(dir, c.ref+".log")); strings.TrimSpace(string(nvrc)) == strconv.Itoa(rc) && rc != 0 && outOfDir(dir, stderr.String()) == string(log) {
					checked++ // (the same failure)
					identical++
					return
				}
				if strings.TrimSpace(string(nvrc)) != "0" || rc != 0 {
					t.Fatalf("exit status %d, nvlink 13.0 %s: %s", rc, strings.TrimSpace(string(nvrc)), stderr.String())
				}
				ours, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := os.ReadFile(filepath.Join(dir, c.ref+".cubin"))
				checked++
				why, known := differing13[name+"/"+c.args]
				switch same := bytes.Equal(ours, want); {
				case same && known:
					identical++
					t.Errorf("byte-identical now (differing13 says: %s): update differing13", why)
				case same:
					identical++
				case !known:
					t.Errorf("not byte-identical to nvlink 13.0's output")
				}
				for _, d := range equivalent13(t, ours, want) {
					t.Error(d)
				}
			})
		}
	}
	if want := 2*len(names) - skipped; checked != want {
		t.Fatalf("%d links checked, want %d", checked, want)
	}
	t.Logf("corpus cuda13.0-sm_90: %d of %d links byte-identical to nvlink 13.0 (the others equivalent)", identical, checked)
}

// metadata13 are the sections equivalent13 does not compare byte for
// byte: symbol and string tables, what refers to symbols by index
// (relocations and prototypes; .nv.info and .nv.callgraph are compared
// with names for the indices, see infoRecords and callgraphEntries), and
// .nv.rel.action.
func metadata13(name string) bool {
	switch name {
	case ".symtab", ".strtab", ".shstrtab", ".nv.prototype", ".nv.rel.action":
		return true
	}
	return strings.HasPrefix(name, ".rela") || strings.HasPrefix(name, ".rel.")
}

// equivalent13 lists how ours differs from nvlink 13.0's output (ref) in
// what the GPU runs: the header's machine and flags, the section names
// (with repeats), every section's header fields (section and symbol
// indices as names) and bytes but metadata13's, the .nv.info records,
// and the defined functions' names, values, sizes, st_other, binding
// and sections.
func equivalent13(t *testing.T, ours, ref []byte) []string {
	a, err := elf.Parse(ours)
	if err != nil {
		t.Fatalf("ours: %v", err)
	}
	b, err := elf.Parse(ref)
	if err != nil {
		t.Fatalf("nvlink 13.0's: %v", err)
	}
	var diffs []string
	if a.Header.Machine != b.Header.Machine || a.Header.Type != b.Header.Type {
		diffs = append(diffs, "ELF header: machine or type differs")
	}
	if fa, fb := a.Header.Flags, b.Header.Flags; fa != fb {
		diffs = append(diffs, fmt.Sprintf("ELF header: flags %#x, nvlink 13.0 %#x", fa, fb))
	}
	sa, na := sectionsByName13(a)
	sb, nb := sectionsByName13(b)
	if !slices.Equal(na, nb) {
		diffs = append(diffs, "section names differ:\n ours "+strings.Join(na, " ")+"\n  ref "+strings.Join(nb, " "))
	}
	for name, xi := range sb {
		yi, ok := sa[name]
		if !ok || metadata13(name) {
			continue
		}
		diffs = append(diffs, sectionDiffs13(t, name, a, yi, b, xi)...)
	}
	if fa, fb := definedFuncs13(a), definedFuncs13(b); !slices.Equal(fa, fb) {
		diffs = append(diffs, "functions differ:\n ours "+strings.Join(fa, ", ")+"\n  ref "+strings.Join(fb, ", "))
	}
	return diffs
}

// sectionsByName13 maps f's section names to their sections' indices and
// lists the names (repeats included), sorted.
func sectionsByName13(f *elf.File) (map[string]int, []string) {
	m := map[string]int{}
	var names []string
	for i := range f.Sections {
		m[f.SecName(i)] = i
		names = append(names, f.SecName(i))
	}
	slices.Sort(names)
	return m, names
}

// secName13 is the name of f's section i, or "[i]" when there is none.
func secName13(f *elf.File, i uint32) string {
	if int(i) < len(f.Sections) {
		return f.SecName(int(i))
	}
	return fmt.Sprint("[", i, "]")
}

// sectionDiffs13 compares our section yi of a with nvlink 13.0's section
// xi of b, both named name, as equivalent13 does.
func sectionDiffs13(t *testing.T, name string, a *elf.File, yi int, b *elf.File, xi int) []string {
	y, x := &a.Sections[yi], &b.Sections[xi]
	yh, _ := a.Shdr(yi)
	xh, _ := b.Shdr(xi)
	var diffs []string
	if x.Type != y.Type || x.Addralign != y.Addralign || x.Entsize != y.Entsize {
		return []string{"section " + name + ": type, alignment or entry size differs"}
	}
	// nvlink 13.0 sets SHF_INFO_LINK on the .nv.info.<f> sections.
	if xh.Flags != yh.Flags && !(xh.Flags == yh.Flags|elf.SHFInfoLink && strings.HasPrefix(name, ".nv.info.")) {
		diffs = append(diffs, fmt.Sprintf("section %s: flags %#x, nvlink 13.0 %#x", name, yh.Flags, xh.Flags))
	}
	if secName13(a, yh.Link) != secName13(b, xh.Link) {
		diffs = append(diffs, "section "+name+": sh_link names another section")
	}
	if strings.HasPrefix(name, ".text.") {
		// sh_info is the function's symbol; warplink keeps its
		// register count in the top byte, as nvlink 11.8 does, where
		// nvlink 13.0 writes none.
		if a.SymbolName(y.Info&0xFFFFFF) != b.SymbolName(x.Info&0xFFFFFF) || (x.Info>>24 != 0 && x.Info>>24 != y.Info>>24) {
			diffs = append(diffs, "section "+name+": sh_info names another symbol")
		}
	} else if secName13(a, y.Info) != secName13(b, x.Info) {
		diffs = append(diffs, "section "+name+": sh_info names another section")
	}
	if x.Type == elf.SHTCudaCallgraph {
		// warplink also lists, as nvlink 11.8 does, a call edge from
		// each indirect call site to every address-taken function of
		// its prototype; nvlink 13.0 lists none: of the call edges
		// (-1), nvlink 13.0's must be among warplink's.
		ga, gb := callgraphEntries(t, a, y), callgraphEntries(t, b, x)
		edges := func(l []string) (calls, rest []string) {
			for _, e := range l {
				if strings.HasPrefix(e, "-1 ") {
					calls = append(calls, e)
				} else {
					rest = append(rest, e)
				}
			}
			return calls, rest
		}
		ca, ra := edges(ga)
		cb, rb := edges(gb)
		missing := slices.ContainsFunc(cb, func(e string) bool { return !slices.Contains(ca, e) })
		if missing || !slices.Equal(ra, rb) {
			diffs = append(diffs, "section "+name+": entries differ:\n ours "+strings.Join(ga, " ")+"\n  ref "+strings.Join(gb, " "))
		}
		return diffs
	}
	if x.Type == elf.SHTCudaInfo {
		ra, rb := infoRecords(t, a, y), infoRecords(t, b, x)
		if name == ".nv.info" {
			// Per-function records: nvlink 13.0 lists the functions
			// in another order.
			slices.Sort(ra)
			slices.Sort(rb)
		}
		if !slices.Equal(ra, rb) {
			diffs = append(diffs, "section "+name+": records differ:\n ours "+strings.Join(ra, " ")+"\n  ref "+strings.Join(rb, " "))
		}
		return diffs
	}
	if x.Size != y.Size || !bytes.Equal(x.Data(), y.Data()) {
		diffs = append(diffs, "section "+name+": size or bytes differ")
	}
	return diffs
}

// definedFuncs13 lists f's defined functions' names, values, sizes,
// st_other, binding and sections, sorted.
func definedFuncs13(f *elf.File) []string {
	var l []string
	for _, s := range f.Symbols {
		if s.Type() == elf.STTFunc && s.Shndx != 0 {
			// (Defined ones: nvlink 13.0 drops the undefined
			// libcudadevrt functions nothing calls, warplink keeps
			// them as nvlink 11.8 does.)
			l = append(l, strings.Join([]string{s.Name, hex(s.Value), hex(s.Size), hex(uint64(s.Other)),
				hex(uint64(s.Bind())), secName13(f, s.Shndx)}, " "))
		}
	}
	slices.Sort(l)
	return l
}

// callgraphEntries is a .nv.callgraph section's entries, sorted, each as
// its block and two names: symbols, or a symbol and its prototype string
// (from .strtab) in the blocks that pair them (elf.CallgraphProtoBlock).
func callgraphEntries(t *testing.T, f *elf.File, s *elf.Section) []string {
	es, err := elf.ParseCallgraph(s.Data())
	if err != nil {
		t.Fatalf("call graph: %v", err)
	}
	var l []string
	block := int32(-1)
	for _, e := range es {
		if e.IsMarker() {
			block = e.Callee
			continue
		}
		second := f.SymbolName(uint32(e.Callee))
		if elf.CallgraphProtoBlock(block) {
			second, _ = f.StrtabString(uint32(e.Callee))
		}
		l = append(l, fmt.Sprint(block, " ", f.SymbolName(e.Caller), " ", second))
	}
	slices.Sort(l)
	return l
}

// infoRecords is a .nv.info section's records, one string each, with the
// symbols they name by index (elf.Attr.SymbolRefs) written as names.
func infoRecords(t *testing.T, f *elf.File, s *elf.Section) []string {
	attrs, err := elf.ParseNvInfo(s.Data())
	if err != nil {
		t.Fatalf(".nv.info section: %v", err)
	}
	l := make([]string, len(attrs))
	for i, a := range attrs {
		p := slices.Clone(a.Payload)
		var names []string
		for _, off := range a.SymbolRefs() {
			if off+4 <= len(p) {
				idx := uint32(p[off]) | uint32(p[off+1])<<8 | uint32(p[off+2])<<16 | uint32(p[off+3])<<24
				names = append(names, f.SymbolName(idx))
				copy(p[off:off+4], []byte{0, 0, 0, 0})
			}
		}
		l[i] = fmt.Sprintf("%#x/%d/%d/%x%v", a.Code, a.Format, a.Value, p, names)
	}
	return l
}

func hex(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }
