package merge

import (
	"testing"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/hugemem"
)

// TestGlobalInfoNoted checks that the .nv.info sections decodeInfo notes
// as global (named .nv.info: the names are gone after merge) read back,
// one or several.
func TestGlobalInfoNoted(t *testing.T) {
	for _, global := range [][]int{nil, {3}, {2, 5}, {1, 4, 9}} {
		o := &Obj{}
		for _, si := range global {
			o.noteGlobalInfo(si)
		}
		for si := range 10 {
			want := false
			for _, g := range global {
				want = want || g == si
			}
			if got := o.isGlobalInfo(si); got != want {
				t.Errorf("noted %v: section %d global %v, want %v", global, si, got, want)
			}
		}
	}
}

// TestPrototypeRecordsMoved checks that merge's rewriting of prototype
// records (movePrototype) gives them offsets into the output's .strtab,
// noPrototype for a string that did not decode, and that contents the
// arena shares as zeros (a read-only mapping) are copied first
// (protoRecords).
func TestPrototypeRecordsMoved(t *testing.T) {
	ctx := &Context{Str: newStrTabNoOrdinals(), mem: &hugemem.Arena{}}
	defer ctx.mem.Free()
	o := &Obj{}
	zeros := ctx.mem.Zeros(16)
	if zeros == nil {
		t.Skip("no mappings")
	}
	var s elf.Section
	s.Size = 16
	s.SetData(zeros)
	d := protoRecords(o, &s)
	if unsafe.SliceData(d) == unsafe.SliceData(zeros) || unsafe.SliceData(s.Data()) != unsafe.SliceData(d) || o.rare == nil || len(o.rare.private) != 1 {
		t.Fatal("the shared zeros were not copied")
	}
	ctx.Str.Add("f")
	movePrototype(ctx, d, 0, ".callprototype (.param .b32 _) _ ();", true)
	movePrototype(ctx, d, 8, "", false)
	strs := ctx.Str.Bytes()
	e := elf.CallgraphEntryAt(d, 0)
	if got, decoded := elf.CString(strs, uint32(e.Callee)); !decoded || got != ".callprototype (.param .b32 _) _ ();" {
		t.Errorf("record 0 points at %d: %q", e.Callee, got)
	}
	if e := elf.CallgraphEntryAt(d, 8); e.Callee != noPrototype || e.IsMarker() {
		t.Errorf("record 1 points at %d", e.Callee)
	}
	if _, decoded := elf.CString(strs, noPrototype); decoded {
		t.Error("noPrototype decodes")
	}
}
