package merge

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/hugemem"
	"github.com/warplink/warplink/internal/linkflags"
)

// gcWriter discards what it is given, collecting garbage first.
type gcWriter struct{}

func (gcWriter) Write(p []byte) (int, error) {
	runtime.GC()
	return len(p), nil
}

// TestOverlapCopySurvivesGC links an input whose .shstrtab overlaps the
// next section by one byte (malformed: relocate then patches a private
// copy of the code), in a child process under GOGC=1 with freed memory
// clobbered, with and without the huge-page arena. The outputs must be
// the same: the copy must stay reachable although the section table
// naming it may live where the collector does not look (once it did not,
// without the arena, and the output held the clobber pattern).
func TestOverlapCopySurvivesGC(t *testing.T) {
	if out := os.Getenv("WARPLINK_OVERLAP_CHILD"); out != "" {
		// The dump after finalize collects garbage just before write.
		opts := &Options{
			Flags:    linkflags.Flags{Arch: "sm_80", Output: out, Inputs: filepath.SplitList(os.Getenv("WARPLINK_OVERLAP_INPUTS"))},
			Warplink: linkflags.Warplink{Dump: "finalize"},
			Tuning:   Tuning{PlainMemory: os.Getenv("WARPLINK_OVERLAP_PLAIN") != ""},
			Hooks:    Hooks{DumpTo: gcWriter{}},
		}
		linkOK(t, opts)
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_80/printf")
	a, err := os.ReadFile(filepath.Join(dir, "a.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Parse(a)
	if err != nil {
		t.Fatal(err)
	}
	// One more byte of .shstrtab: it then overlaps the section after it.
	sh := f.Header.Shoff + uint64(f.Header.Shstrndx)*elf.ShdrSize
	binary.LittleEndian.PutUint64(a[sh+32:], f.Sections[f.Header.Shstrndx].Size+1)
	if g, err := elf.Parse(a); err != nil || !sectionsOverlap(g) {
		t.Fatalf("the edited input should parse and overlap (err %v)", err)
	}
	tmp := t.TempDir()
	ov := filepath.Join(tmp, "a_ov.cubin")
	if err := os.WriteFile(ov, a, 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := ov + string(filepath.ListSeparator) + filepath.Join(dir, "b.cubin")
	var outs [][]byte
	for i, plain := range []string{"", "1"} {
		out := filepath.Join(tmp, []string{"arena.cubin", "plain.cubin"}[i])
		outs = append(outs, gcStressChild(t, "TestOverlapCopySurvivesGC", out, "WARPLINK_OVERLAP_CHILD="+out,
			"WARPLINK_OVERLAP_INPUTS="+inputs, "WARPLINK_OVERLAP_PLAIN="+plain))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("the link with the arena and the one without differ")
	}
}

// TestReadingReportsLoadedBytes checks Options.Reading: read reports what
// it has loaded after each batch (three here), every report at most the
// input size InputSize is then told, the largest equal to it. (Reports
// from read's goroutines may arrive out of order.)
func TestReadingReportsLoadedBytes(t *testing.T) {
	dir := "../testdata/corpus/cuda11.8-sm_90/xcall"
	var mu sync.Mutex
	var reports []int64
	var size int64 = -1
	opts := &Options{
		Flags:    linkflags.Flags{Arch: "sm_90", Output: filepath.Join(t.TempDir(), "out.cubin"), Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin"), filepath.Join(dir, "c.cubin")}},
		Warplink: linkflags.Warplink{Threads: 1},
		Hooks:    Hooks{Reading: func(n int64) { mu.Lock(); reports = append(reports, n); mu.Unlock() }, InputSize: func(n int64, _ bool) { size = n }},
	}
	linkOK(t, opts)
	if len(reports) != 3 || size <= 0 {
		t.Fatalf("reports %v, input size %d; want three reports", reports, size)
	}
	for _, r := range reports {
		if r <= 0 || r > size {
			t.Errorf("report %d outside (0, %d]", r, size)
		}
	}
	if m := slices.Max(reports); m != size {
		t.Errorf("largest report %d, input size %d", m, size)
	}
}

// TestReleaseTables links corpus programs pass by pass and checks that
// finalize leaves no input symbol table, relocations or .nv.info records
// behind (their memory is unmapped: a pass reading them after would fault,
// which the corpus tests would show), unless a dump is asked for, which
// prints their sizes; that tables too large to free are reset, and their
// memory holds what finalize and write place in an arena after; and that
// the output is the same bytes in every case.
func TestReleaseTables(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/cdp")
	var outs [][]byte
	for _, c := range []struct {
		dump  string
		reset bool
	}{{"", false}, {"write", false}, {"", true}} {
		opts := &Options{
			Flags:    linkflags.Flags{Arch: "sm_90", Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin")}, LibDirs: []string{"../testdata/cudalib"}},
			Warplink: linkflags.Warplink{Dump: c.dump},
			Hooks:    Hooks{DumpTo: &bytes.Buffer{}},
		}
		opts.Inputs = append(opts.Inputs, "-lcudadevrt")
		ctx := newContext(opts, &diag.Bag{}, "warplink")
		if c.reset {
			ctx.freeTablesBelow = -1
		}
		err := run(ctx)
		if err != nil || ctx.Diags.Failed() {
			t.Fatalf("%+v: %v %v", c, err, ctx.Diags.Sorted())
		}
		syms := 0
		for _, o := range ctx.Objs {
			syms += len(o.F.Symbols)
			if o.relSecs != nil {
				t.Errorf("%+v: %s keeps its relocations", c, o.Name)
			}
		}
		if (syms == 0) != (c.dump == "") {
			t.Errorf("%+v: %d input symbols left after the link", c, syms)
		}
		if reused := ctx.late == ctx.tables && ctx.tables.Used() > 0; reused != (c.reset && ctx.tables.OffHeap()) {
			t.Errorf("%+v: the tables' memory reused %v (%d bytes)", c, reused, ctx.tables.Used())
		}
		outs = append(outs, ctx.Out)
		ctx.tables.Free()
		ctx.mem.Free()
	}
	for i := 1; i < len(outs); i++ {
		if len(outs[0]) == 0 || !bytes.Equal(outs[0], outs[i]) {
			t.Errorf("outputs differ: %d bytes, case %d %d bytes", len(outs[0]), i, len(outs[i]))
		}
	}
}

// TestSmallPagesArenas: Options.SmallPages keeps both arenas' first
// mappings in small pages, but for the first InputEstimate bytes of the main
// arena; without it both take huge pages from their first byte, whatever
// the estimate; PlainMemory has no arenas.
func TestSmallPagesArenas(t *testing.T) {
	for _, c := range []struct {
		opts        Options
		mem, tables int
		hugeTo      int
		plain       bool
	}{
		{Options{}, 0, 0, 0, false},
		{Options{Tuning: Tuning{SmallPages: true}}, hugemem.AllSmall, hugemem.AllSmall, 0, false},
		{Options{Tuning: Tuning{SmallPages: true, InputEstimate: 4 << 20}}, 0, hugemem.AllSmall, 4 << 20, false},
		{Options{Tuning: Tuning{InputEstimate: 4 << 20}}, 0, 0, 0, false},
		{Options{Tuning: Tuning{InputEstimate: 32 << 20}}, 0, 0, 0, false},
		{Options{Tuning: Tuning{SmallPages: true, InputEstimate: 32 << 20}}, 0, hugemem.AllSmall, 32 << 20, false},
		{Options{Tuning: Tuning{PlainMemory: true, SmallPages: true}}, 0, 0, 0, true},
	} {
		ctx := newContext(&c.opts, &diag.Bag{}, "warplink")
		if c.plain {
			if ctx.mem != nil || ctx.tables != nil {
				t.Errorf("%+v: arenas with PlainMemory", c.opts)
			}
			continue
		}
		if ctx.mem.HugeTo != c.hugeTo || ctx.tables.HugeTo != 0 {
			t.Errorf("%+v: HugeTo %d and %d, want %d and 0", c.opts, ctx.mem.HugeTo, ctx.tables.HugeTo, c.hugeTo)
		}
		if ctx.mem.SmallFirst != c.mem || ctx.tables.SmallFirst != c.tables {
			t.Errorf("%+v: SmallFirst %d and %d, want %d and %d", c.opts, ctx.mem.SmallFirst, ctx.tables.SmallFirst, c.mem, c.tables)
		}
	}
}

// TestMappedInfoSectionsSurviveGC links a corpus program with its tables
// reset for reuse (as a large link's are), in a child process under
// GOGC=1 with freed memory clobbered: finalize's .nv.info.<f> sections
// then live in the tables' memory, which the collector does not scan, so
// nothing they point to may be heap memory only they refer to. The output
// must be the bytes of a plain link.
func TestMappedInfoSectionsSurviveGC(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/cdp")
	link := func(reset bool) (*Context, []byte) {
		opts := &Options{
			Flags: linkflags.Flags{Arch: "sm_90", Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin"), "-lcudadevrt"}, LibDirs: []string{"../testdata/cudalib"}},
		}
		ctx := newContext(opts, &diag.Bag{}, "warplink")
		if reset {
			ctx.freeTablesBelow = -1
		}
		if err := run(ctx); err != nil || ctx.Diags.Failed() {
			t.Fatalf("reset %v: %v %v", reset, err, ctx.Diags.Sorted())
		}
		return ctx, ctx.Out
	}
	if out := os.Getenv("WARPLINK_MAPPEDINFO_CHILD"); out != "" {
		ctx, b := link(true)
		if ctx.tables.OffHeap() && (!ctx.infoSecs.mapped || len(ctx.infoSecs.c) == 0) {
			t.Fatal("the .nv.info.<f> sections are not in the tables' memory")
		}
		// Their names and contents, after collections, are the output's
		// (the contents in compact form, which write patches as it copies
		// them: compactInfo).
		runtime.GC()
		runtime.GC()
		f, err := elf.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string][]byte{}
		for i := range f.Sections {
			names[f.SecName(i)] = f.Sections[i].Data()
		}
		for _, c := range ctx.infoSecs.c {
			for i := range c {
				if len(c[i].Data()) > writeChunk(ctx, uint64(len(b))) {
					continue // (patched in place by write: emitLarge)
				}
				got := append([]byte(nil), c[i].Data()...)
				patchCompact(ctx, got)
				if data, ok := names[c[i].Name]; !ok || !bytes.Equal(data, got) {
					t.Fatalf("section %q (%d bytes) is not the output's", c[i].Name, len(c[i].Data()))
				}
			}
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	_, want := link(false)
	out := filepath.Join(t.TempDir(), "out.cubin")
	got := gcStressChild(t, "TestMappedInfoSectionsSurviveGC", out, "WARPLINK_MAPPEDINFO_CHILD="+out)
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Fatalf("the link with mapped sections (%d bytes) differs from the plain one (%d bytes)", len(got), len(want))
	}
}

// TestReleaseNames checks that a link frees the inputs' string tables
// once merge has copied the names (releaseNames), but where a later pass
// reads them (--kernels-used: lastSingleConstant; 13.0: eachName), and
// that the output is the same bytes either way, and as with no arena for
// them (small pages).
func TestReleaseNames(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/xcall")
	var outs [][]byte
	for _, c := range []struct {
		kernels []string
		small   bool
		freed   bool
	}{{nil, false, true}, {[]string{"xcall"}, false, false}, {nil, true, false}} {
		opts := &Options{
			Flags:  linkflags.Flags{Arch: "sm_90", KernelsUsed: c.kernels, Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin"), filepath.Join(dir, "c.cubin")}},
			Tuning: Tuning{CheckNames: true, SmallPages: c.small},
		}
		ctx := newContext(opts, &diag.Bag{}, "warplink")
		var used int
		ctx.Opts.PassDone = func(pass string) {
			if pass == "read" {
				used = ctx.names.Used()
			}
		}
		if err := run(ctx); err != nil || ctx.Diags.Failed() {
			t.Fatalf("%+v: %v %v", c, err, ctx.Diags.Sorted())
		}
		if freed := used > 0 && ctx.names.Used() == 0; freed != c.freed {
			t.Errorf("%+v: names freed %v (%d bytes read, %d left)", c, freed, used, ctx.names.Used())
		}
		if c.kernels == nil {
			outs = append(outs, ctx.Out)
		}
		ctx.tables.Free()
		ctx.mem.Free()
		ctx.names.Free()
	}
	if len(outs[0]) == 0 || !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("outputs differ: %d and %d bytes", len(outs[0]), len(outs[1]))
	}
}

// gcStressChild runs test's child branch (which env selects) in a child
// process under GOGC=1 with freed memory clobbered, and returns the output
// file out it wrote.
func gcStressChild(t *testing.T, test, out string, env ...string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(append(os.Environ(), "GOGC=1", "GODEBUG=clobberfree=1"), env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child (%s): %v\n%s", strings.Join(env, " "), err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// linkOK links opts, failing t, with what the link wrote to stderr, unless
// it succeeds.
func linkOK(t *testing.T, opts *Options) {
	t.Helper()
	var stderr bytes.Buffer
	if rc := Link(opts, &bytes.Buffer{}, &stderr, "warplink"); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
}
