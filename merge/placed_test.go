package merge

import (
	"reflect"
	"slices"
	"testing"

	"github.com/warplink/warplink/elf"
)

// placedTypes are the types a link keeps in arena memory (internal/hugemem),
// which the collector does not scan, with the fields allowed to hold
// pointers: each points into an input's bytes or into memory from the same
// arena, kept alive by the link's input list (elf.File.Raw) or the arena
// (an input's names: Context.names, until releaseNames), never to Go
// memory only the field refers to. A type placed there by a new
// elf.SliceOf or elf.Alloc call belongs here.
var placedTypes = []struct {
	typ      reflect.Type
	pointers []string
}{
	// elf.ParseInto and ParseCompact (input.Memory's Tables and Symbols).
	{reflect.TypeFor[elf.Section](), []string{"data"}},
	{reflect.TypeFor[elf.Symbol](), []string{"Name"}},
	// read's decodeInfo (elf.RelocsInto, elf.ParseNvInfoInto).
	{reflect.TypeFor[elf.Rela](), nil},
	{reflect.TypeFor[elf.Attr](), []string{"Payload"}},
	// StrTab.Reserve (from ctx.mem.Alloc, whose heap fallback is a
	// []byte: no pointers at all).
	{reflect.TypeFor[strSlot](), nil},
	{reflect.TypeFor[uint32](), nil},
	// finalize's tables past releaseTables (Context.lateScratch).
	{reflect.TypeFor[int32](), nil},
	{reflect.TypeFor[uint64](), nil},
	{reflect.TypeFor[uint8](), nil},
	{reflect.TypeFor[bool](), nil},
	{reflect.TypeFor[regBest](), nil},
	{reflect.TypeFor[cgEdge](), nil},
	// finalize's .nv.info.<f> sections (newSecChunks, from lateMapped):
	// their names and contents from the same memory, gen nil. Every other
	// section and symbol (recordSlab: pointer-free heap memory): names
	// from an input until merge ends, in the output's string tables after
	// (releaseNames, which pins the tables), or pinned with the contents,
	// pieces and gen (pin).
	{reflect.TypeFor[OutSec](), []string{"Name", "body", "gen"}},
	{reflect.TypeFor[OutSym](), []string{"Name"}},
}

// TestPlacedTypesHoldNoNewPointers fails when a field that holds a pointer
// (a pointer, string, slice, map, channel, function or interface, directly
// or in a struct or array) is added to a type kept in arena memory, or
// when an allowed one no longer holds one: the collector would not see
// such a pointer, and would free what only it refers to.
func TestPlacedTypesHoldNoNewPointers(t *testing.T) {
	for _, p := range placedTypes {
		var found []string
		if p.typ.Kind() == reflect.Struct {
			for i := range p.typ.NumField() {
				if f := p.typ.Field(i); holdsPointers(f.Type) {
					found = append(found, f.Name)
				}
			}
		} else if holdsPointers(p.typ) {
			found = append(found, "(itself)")
		}
		for _, f := range found {
			if !slices.Contains(p.pointers, f) {
				t.Errorf("%v.%s holds a pointer, and %v is kept in arena memory the collector does not scan", p.typ, f, p.typ)
			}
		}
		for _, f := range p.pointers {
			if !slices.Contains(found, f) {
				t.Errorf("%v.%s is allowed a pointer but holds none: remove it from placedTypes", p.typ, f)
			}
		}
	}
}

// holdsPointers reports whether a value of type t holds a pointer the
// collector traces.
func holdsPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.UnsafePointer, reflect.String, reflect.Slice,
		reflect.Map, reflect.Chan, reflect.Func, reflect.Interface:
		return true
	case reflect.Array:
		return t.Len() > 0 && holdsPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestAlignUp checks alignUp's mask (powers of two) against the division
// it stands for, and its other alignments (0 and 1: none; others divide).
func TestAlignUp(t *testing.T) {
	t.Parallel()
	top := ^uint64(0)
	for _, a := range []uint64{0, 1, 2, 3, 4, 6, 8, 12, 16, 4096, 1 << 40, 1 << 63} {
		for _, v := range []uint64{0, 1, 2, 3, 5, 7, 8, 9, 4095, 4096, 4097, 1<<40 + 1, top / 2, top - (1 << 40)} {
			want := v
			if a > 1 {
				want = (v + a - 1) / a * a // (wraps as the mask does near the top)
			}
			if got := alignUp(v, a); got != want {
				t.Errorf("alignUp(%d, %d) = %d, want %d", v, a, got, want)
			}
		}
	}
}
