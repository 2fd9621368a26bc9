package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/input"
	"github.com/warplink/warplink/internal/linkflags"
)

// TestNoscanSlabKeepsRare checks that more, for an object of a
// pointer-free slab, puts its objRare in the batch's keep (found through
// the slab's head), so that collections leave it alone although the slab
// is not scanned.
func TestNoscanSlabKeepsRare(t *testing.T) {
	if unsafe.Offsetof(objSlot{}.obj) != 0 {
		t.Fatal("an Obj must start its objSlot (rareKeep)")
	}
	keep := &batchKeep{rares: make([]*objRare, 3)}
	slab := noscanSlab(3, keep)
	var freed atomic.Bool
	for k := range slab {
		o := &slab[k].obj
		o.slot = uint8(k + 1)
		if k == 2 {
			r := o.more()
			r.launched = []int32{7}
			runtime.SetFinalizer(r, func(*objRare) { freed.Store(true) })
		}
	}
	for range 3 {
		runtime.GC()
	}
	if keep.rares[2] == nil || keep.rares[2] != slab[2].obj.rare || keep.rares[0] != nil || keep.rares[1] != nil {
		t.Fatalf("keep holds %v, want only the third object's objRare %p", keep.rares, slab[2].obj.rare)
	}
	if freed.Load() || slab[2].obj.rare.launched[0] != 7 {
		t.Fatal("the objRare of an object of a pointer-free slab was collected")
	}
	runtime.KeepAlive(keep)
}

// TestKeptAllocFallback checks keptAlloc: memory from the mapping when
// it gives some, else heap memory the keep holds.
func TestKeptAllocFallback(t *testing.T) {
	k := &objKeep{}
	mapped := make([]byte, 24)
	if b := k.keptAlloc(func(int) []byte { return mapped })(24); &b[0] != &mapped[0] || len(k.heap) != 0 {
		t.Fatal("keptAlloc did not return the mapping's memory")
	}
	failed := k.keptAlloc(func(int) []byte { return nil })
	if b := failed(0); b != nil {
		t.Fatal("keptAlloc(0) should be nil")
	}
	b := failed(13)
	if len(b) != 13 || len(k.heap) != 1 || unsafe.Pointer(&b[0]) != unsafe.Pointer(&k.heap[0][0]) {
		t.Fatalf("keptAlloc's fallback: %d bytes, %d kept", len(b), len(k.heap))
	}
}

// TestNoscanSlabsSurviveGC links a cubin or a host object with an
// archive found with -l, and a cubin before two host objects (objects in
// pointer-free slabs, named by the command line's strings or not,
// decoded into their slot's record or not, with an objRare past a slab's
// first slot), in a child process under GOGC=1 with freed memory
// clobbered and a collection after every pass, and without arenas (typed
// slabs): the outputs must be the same.
func TestNoscanSlabsSurviveGC(t *testing.T) {
	dir, _ := filepath.Abs("../testdata/corpus/cuda12.4-sm_80/archive")
	if out := os.Getenv("WARPLINK_NOSCAN_CHILD"); out != "" {
		var inputs []string
		for _, in := range strings.Split(os.Getenv("WARPLINK_NOSCAN_INPUTS"), ",") {
			if !strings.HasPrefix(in, "-l") {
				in = filepath.Join(dir, in)
			}
			inputs = append(inputs, in)
		}
		opts := &Options{
			Flags:  linkflags.Flags{Arch: "sm_80", Output: out, LibDirs: []string{dir}, Inputs: inputs},
			Tuning: Tuning{PlainMemory: os.Getenv("WARPLINK_NOSCAN_PLAIN") != ""},
			Hooks:  Hooks{PassDone: func(string) { runtime.GC() }},
		}
		linkOK(t, opts)
		return
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	tmp := t.TempDir()
	for _, inputs := range []string{"main.cubin,-ldev", "main.o,-ldev", "lib.cubin,main.o,lib2.o"} {
		var outs [][]byte
		for i, plain := range []string{"", "1"} {
			out := filepath.Join(tmp, []string{"arena.cubin", "plain.cubin"}[i])
			outs = append(outs, gcStressChild(t, "TestNoscanSlabsSurviveGC", out, "WARPLINK_NOSCAN_CHILD="+out,
				"WARPLINK_NOSCAN_PLAIN="+plain, "WARPLINK_NOSCAN_INPUTS="+inputs))
		}
		if len(outs[0]) == 0 || !bytes.Equal(outs[0], outs[1]) {
			t.Fatalf("%s: the link with pointer-free slabs (%d bytes) and the one without (%d) differ", inputs, len(outs[0]), len(outs[1]))
		}
	}
}

// TestReadKeepsRarePerPlace reads a host object eight times, two inputs
// a batch (one worker), and checks that each object of a pointer-free
// slab, wherever in its slab, has its objRare (setHost's) in its batch's
// keep at its place.
func TestReadKeepsRarePerPlace(t *testing.T) {
	path, _ := filepath.Abs("../testdata/corpus/cuda12.4-sm_80/archive/main.o")
	paths := slices.Repeat([]string{path}, 8)
	opts := &Options{Flags: linkflags.Flags{Arch: "sm_80", Inputs: paths}, Warplink: linkflags.Warplink{Threads: 1}}
	ctx := newContext(opts, &diag.Bag{}, "warplink")
	defer ctx.tables.Free()
	defer ctx.mem.Free()
	defer ctx.names.Free()
	l := readInputs(ctx, paths, len(paths), input.Target{SM: 80})
	if l.keep == nil || len(l.keep.batches) != 4 {
		t.Fatalf("want pointer-free slabs, two inputs a batch (keep %v)", l.keep)
	}
	runtime.GC()
	for i, objs := range l.objs {
		if len(objs) != 1 || objs[0].rare == nil || objs[0].ModuleID() == "" {
			t.Fatalf("input %d: %d objects, want one with its host's module ID", i, len(objs))
		}
		o := objs[0]
		if int(o.slot) != i%2+1 || l.keep.batches[i/2].rares[i%2] != o.rare {
			t.Errorf("input %d: slot %d, its batch's keep holds %v, want its objRare %p", i, o.slot, l.keep.batches[i/2].rares, o.rare)
		}
	}
}
