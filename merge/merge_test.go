package merge

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/linkflags"
)

func TestPatchBitField(t *testing.T) {
	// A 32-bit field at bit 32 of an instruction word, with an addend
	// already in the field (nvlink's non-absolute mode adds to it).
	b := []byte{0xAA, 0xBB, 0xCC, 0xDD, 0x10, 0, 0, 0, 0xEE, 0xFF}
	patch(b, field{pos: 32, width: 32}, 0x400)
	want := []byte{0xAA, 0xBB, 0xCC, 0xDD, 0x10, 0x04, 0, 0, 0xEE, 0xFF}
	if !bytes.Equal(b, want) {
		t.Fatalf("got % x, want % x", b, want)
	}
	// A field crossing into the second word, with a shift (HI_32 style).
	c := make([]byte, 16)
	patch(c, field{pos: 60, width: 8, shift: 32}, 0xAB_0000_0000)
	if got := extract(le64(c[0:8]), le64(c[8:16]), 60, 8); got != 0xAB {
		t.Fatalf("crossing field = %#x, want 0xab", got)
	}
	for i := range c {
		if (i < 7 || i > 8) && c[i] != 0 {
			t.Fatalf("byte %d written outside the field: % x", i, c)
		}
	}
}

// TestBitFieldWords checks extract and insert against bit-by-bit
// definitions, for every field position and width in a 128-bit word.
func TestBitFieldWords(t *testing.T) {
	bit := func(lo, hi uint64, b uint) uint64 {
		if b < 64 {
			return lo >> b & 1
		}
		return hi >> (b - 64) & 1
	}
	x := uint64(0x9e3779b97f4a7c15)
	for pos := uint(0); pos < 128; pos++ {
		for width := uint(1); width <= 64 && pos+width <= 128; width++ {
			x = x*6364136223846793005 + 1442695040888963407
			lo, hi, v := x, x^0x5555aaaa3333cccc, x*31
			want := uint64(0)
			for i := uint(0); i < width; i++ {
				want |= bit(lo, hi, pos+i) << i
			}
			if got := extract(lo, hi, pos, width); got != want {
				t.Fatalf("extract(%d, %d) = %#x, want %#x", pos, width, got, want)
			}
			nlo, nhi := insert(lo, hi, pos, width, v)
			for b := uint(0); b < 128; b++ {
				w := bit(lo, hi, b)
				if b >= pos && b < pos+width {
					w = v >> (b - pos) & 1
				}
				if bit(nlo, nhi, b) != w {
					t.Fatalf("insert(%d, %d): bit %d is %d, want %d", pos, width, b, bit(nlo, nhi, b), w)
				}
			}
		}
	}
}

// TestConstField1940 pins R_CUDA_CONST_FIELD19_40 (sm_80 and older): the
// field at bit 40 holds the byte offset in 32-bit words (observed: nvlink
// 11.8 writes 0x0d for the 0x34th byte of .nv.constant3, generated sm_80
// workloads), with the implicit addend of a REL input already in it.
func TestConstField1940(t *testing.T) {
	f, _ := relocField(rConstField1940)
	b := make([]byte, 16)
	patch(b, f, 0x34)
	if got := extract(le64(b[0:8]), le64(b[8:16]), 40, 14); got != 0x0d {
		t.Fatalf("offset field = %#x, want 0xd", got)
	}
	patch(b, f, 0x8) // a second reference adds to the field (REL addend)
	if got := extract(le64(b[0:8]), le64(b[8:16]), 40, 14); got != 0x0f {
		t.Fatalf("offset field = %#x, want 0xf", got)
	}
}

func TestStrTab(t *testing.T) {
	s := NewStrTab()
	a := s.Add("abc")
	if s.Add("abc") != a || a != 1 {
		t.Fatalf("dedup failed: %d", a)
	}
	d := s.AddDup("abc")
	if d == a {
		t.Fatal("AddDup must append a second copy")
	}
	if got := string(s.Bytes()); got != "\x00abc\x00abc\x00" {
		t.Fatalf("table %q", got)
	}
}

func TestDumpAfterMerge(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/xcall")
	var dump, stderr bytes.Buffer
	opts := &Options{
		Flags:    linkflags.Flags{Arch: "sm_90", Output: filepath.Join(t.TempDir(), "out.cubin"), Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin"), filepath.Join(dir, "c.cubin")}},
		Warplink: linkflags.Warplink{Dump: "merge"},
		Hooks:    Hooks{DumpTo: &dump},
	}
	if rc := Link(opts, &bytes.Buffer{}, &stderr, "warplink"); rc != 0 {
		t.Fatalf("exit %d: %s", rc, stderr.String())
	}
	for _, want := range []string{"objects (3):", ".text._Z7stage_bf", "_Z10xcall_mainPfi GLOBAL/FUNC"} {
		if !strings.Contains(dump.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, dump.String())
		}
	}
}

// TestStrTabIndex checks the open-addressing index through growth: every
// string keeps its first offset and its ordinal, duplicates appended with
// AddDup do not change lookups, and Reserve changes nothing visible (the
// index takes any length: 64 slots, 80 then doubled, 3,111, 41,943).
func TestStrTabIndex(t *testing.T) {
	for _, reserve := range []int{0, 100, 2000, 77777, 1 << 20} {
		s := NewStrTab()
		s.Reserve(reserve, nil)
		var want []uint32
		for i := 0; i < 5000; i++ {
			want = append(want, s.Add(fmt.Sprintf(".text.f%d", i)))
		}
		dup := s.AddDup(".text.f7")
		if dup == want[7] {
			t.Fatalf("reserve %d: AddDup returned the first copy", reserve)
		}
		fresh := s.AddDup(".nv.fresh")
		for i := 0; i < 5000; i++ {
			name := fmt.Sprintf(".text.f%d", i)
			if got := s.Add(name); got != want[i] {
				t.Fatalf("reserve %d: %s at %d, first added at %d", reserve, name, got, want[i])
			}
			if got := s.Ordinal(name); got != int32(i+1) {
				t.Fatalf("reserve %d: ordinal of %s = %d, want %d", reserve, name, got, i+1)
			}
		}
		if s.Add(".nv.fresh") != fresh || s.Ordinal(".nv.fresh") != 5001 {
			t.Fatalf("reserve %d: a new string added by AddDup is not indexed", reserve)
		}
		b := s.Bytes()
		if got := string(b[want[4999] : want[4999]+uint32(len(".text.f4999"))]); got != ".text.f4999" {
			t.Fatalf("reserve %d: table holds %q", reserve, got)
		}
		if s.Add("") != 0 || s.Ordinal("") != 0 || s.Ordinal("absent") != 0 {
			t.Fatalf("reserve %d: empty or absent string", reserve)
		}
	}
}

// TestPassDone checks that Options.PassDone hears every pass of a link
// that succeeds, once each, in the driver's order, and only the passes
// that ran when one fails (an undefined reference, reported by finalize,
// stops the link after the order pass, before write).
func TestPassDone(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/xcall")
	for _, c := range []struct {
		inputs []string
		rc     int
		want   string
	}{
		{[]string{"a.cubin", "b.cubin", "c.cubin"}, 0, "read resolve merge dce layout relocate finalize order write"},
		{[]string{"a.cubin", "b.cubin"}, 255, "read resolve merge dce layout relocate finalize order"},
	} {
		var got []string
		opts := &Options{
			Flags: linkflags.Flags{Arch: "sm_90", Output: filepath.Join(t.TempDir(), "out.cubin")},
			Hooks: Hooks{PassDone: func(p string) { got = append(got, p) }},
		}
		for _, in := range c.inputs {
			opts.Inputs = append(opts.Inputs, filepath.Join(dir, in))
		}
		var stderr bytes.Buffer
		if rc := Link(opts, &bytes.Buffer{}, &stderr, "warplink"); rc != c.rc {
			t.Fatalf("%v: exit %d, want %d: %s", c.inputs, rc, c.rc, stderr.String())
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%v: passes %q, want %q", c.inputs, s, c.want)
		}
	}
}

// TestJoined checks that joined spells a+b, and hands back have itself
// when have spells it (no new string).
func TestJoined(t *testing.T) {
	have := ".rela.text.f"
	if got := joined(have, ".rela", ".text.f"); got != have || unsafe.StringData(got) != unsafe.StringData(have) {
		t.Errorf("joined(%q, .rela, .text.f) = %q, not have itself", have, got)
	}
	for _, c := range [][3]string{{".rel.text.f", ".rela", ".text.f"}, {".rela.text.g", ".rela", ".text.f"}, {"", ".rel", ".nv.constant0.k"}} {
		if got := joined(c[0], c[1], c[2]); got != c[1]+c[2] {
			t.Errorf("joined(%q, %q, %q) = %q", c[0], c[1], c[2], got)
		}
	}
}

// TestBatchSize: with rings, the files all workers hold open at once, and
// the rings, stay within the descriptor table a process starts with, less
// the reserve (growing it costs an RCU grace period); without, batches
// are as large as before; a low descriptor limit still bounds both.
func TestBatchSize(t *testing.T) {
	for w := 1; w <= 64; w++ {
		b := batchSize(100000, w, true, 1<<20)
		if b < 1 || (b > 1 && w*(b+1)+fdReserve > freshFDTable) {
			t.Errorf("%d workers: batches of %d hold %d descriptors", w, b, w*(b+1)+fdReserve)
		}
		if got := batchSize(100000, w, false, 1<<20); got != readBatch {
			t.Errorf("%d workers without rings: batches of %d, want %d", w, got, readBatch)
		}
	}
	if got := batchSize(100000, 2, true, 1<<20); got != 27 {
		t.Errorf("two workers: batches of %d, want 27", got)
	}
	if got := batchSize(100000, 2, true, 64); got != 8 {
		t.Errorf("a limit of 64 descriptors: batches of %d, want 8", got)
	}
	if got := batchSize(10, 2, true, 1<<20); got != 1 {
		t.Errorf("10 files: batches of %d, want 1", got)
	}
}

// TestShardsFor: resolve's record IDs (k*nshards+shard, k below the
// symbols' count) stay in an int32 whatever the link's size.
func TestShardsFor(t *testing.T) {
	for _, c := range []struct{ nshards, nsym, want int }{
		{2, 0, 2}, {2, 1_000_000, 2}, {64, 33_000_000, 64}, {64, 34_000_000, 63},
		{2, math.MaxInt32 / 2, 2}, {2, math.MaxInt32/2 + 1, 1}, {4, math.MaxInt32, 1}, {1, 1 << 40, 1},
	} {
		got := shardsFor(c.nshards, c.nsym)
		if got != c.want {
			t.Errorf("shardsFor(%d, %d) = %d, want %d", c.nshards, c.nsym, got, c.want)
		}
		if c.nsym > 0 && int64(c.nsym)*int64(got)-1 > math.MaxInt32 && got > 1 {
			t.Errorf("shardsFor(%d, %d) = %d: IDs past an int32", c.nshards, c.nsym, got)
		}
	}
}

// TestAllocResIDsShort: totals too small for the objects (a safeguard)
// still give every object its own resID, all -1, and the symbols counted.
func TestAllocResIDsShort(t *testing.T) {
	ctx := &Context{}
	for i, n := range []int{3, 0, 5, 2} {
		ctx.Objs = append(ctx.Objs, &Obj{ID: i, F: &elf.File{Symbols: make([]elf.Symbol, n)}})
	}
	for _, nsym := range []int{0, 4, 10, 100} {
		ctx.objArrays.resID = nil
		if got := allocResIDs(ctx, nsym); got != 10 {
			t.Fatalf("nsym %d: %d symbols counted, want 10", nsym, got)
		}
		for k, o := range ctx.Objs {
			if len(o.resID) != len(o.F.Symbols) {
				t.Fatalf("nsym %d: object %d: %d ids for %d symbols", nsym, k, len(o.resID), len(o.F.Symbols))
			}
			for i, id := range o.resID {
				if id != -1 {
					t.Fatalf("nsym %d: object %d: resID[%d] = %d", nsym, k, i, id)
				}
				o.resID[i] = int32(100*k + i) // (no two objects share an entry)
			}
		}
		for k, o := range ctx.Objs {
			for i, id := range o.resID {
				if id != int32(100*k+i) {
					t.Fatalf("nsym %d: object %d's entries overlap another's", nsym, k)
				}
			}
		}
	}
}

// TestObjTotals checks that the totals read sums (Context.totals) are the
// objects' own once resolve has left out the unused device-runtime
// objects (xcall needs none of them), which merge carves its per-object
// arrays by.
func TestObjTotals(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/xcall")
	opts := &Options{Flags: linkflags.Flags{Arch: "sm_90", LibDirs: []string{"../testdata/cudalib"},
		Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin"), filepath.Join(dir, "c.cubin"), "-lcudadevrt"}}}
	ctx := newContext(opts, &diag.Bag{}, "warplink")
	checked := false
	ctx.Opts.PassDone = func(pass string) {
		if pass != "resolve" {
			return
		}
		checked = true
		if len(ctx.Objs) != 3 {
			t.Errorf("%d objects after resolve, want the 3 inputs (no device runtime)", len(ctx.Objs))
		}
		if ctx.totals == nil || *ctx.totals != objTotalsOf(ctx.Objs) {
			t.Errorf("totals %+v, objects' %+v", ctx.totals, objTotalsOf(ctx.Objs))
			return
		}
		if ctx.totals.secs == 0 || ctx.totals.str == 0 || ctx.totals.globals == 0 {
			t.Errorf("totals %+v: nothing counted", ctx.totals)
		}
	}
	if err := run(ctx); err != nil || ctx.Diags.Failed() {
		t.Fatalf("%v %v", err, ctx.Diags.Sorted())
	}
	if !checked {
		t.Fatal("resolve did not run")
	}
	ctx.tables.Free()
	ctx.mem.Free()
}
