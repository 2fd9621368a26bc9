package merge

// Bound texture and surface references (texture<> and surface<> of CUDA
// before 12.0), as nvlink 11.8 links them (testdata/crafted/bound-
// references, and the links of testdata/sweep's legacy-texref and
// legacy-surfref).
//
// Inputs: the output symbols (a reference stays an undefined global of
// type 10, texture, or 12, surface), the call graph (Context.callees) and
// the inputs' relocations. Outputs: Context.bound, the slot of each
// reference in the kernels' constant bank 0 and the relocations of the
// .rel.nv.constant0.<k> of each kernel that uses any (the same list for
// all), which tell the driver where to write each reference's header
// index (relocate makes the sections: an object's before its own
// relocation sections, as nvlink orders them); the banks' new sizes.
// Invariants: every kernel whose code, or code it calls, refers to a
// reference gets a slot for every reference of the link, at offsets common
// to all of them: past the largest bank 0 of all kernels, 4 bytes each, in
// nvlink's order (boundOrder). The code's relocations against a reference
// are applied with its slot's offset, replacing what ptxas left in the
// field, and dropped; debug sections keep theirs for the driver
// (relocateObject). Kernels that use none keep their bank as it is.

import (
	"slices"
	"strings"

	"github.com/warplink/warplink/elf"
)

// Symbol types of bound references, and the relocation types the driver
// reads in a kernel's .rel.nv.constant0.<k> (R_CUDA_TEX_HEADER_INDEX,
// R_CUDA_SURF_HEADER_INDEX).
const (
	sttTexture       = 10
	sttSurface       = 12
	rTexHeaderIndex  = 6
	rSurfHeaderIndex = 0x34
)

// boundSlotSize is the size of a reference's slot in a constant bank.
const boundSlotSize = 4

// boundRefs is what layoutBoundRefs decides (Context.bound; nil when the
// link has no bound reference a kernel reaches).
type boundRefs struct {
	slot   map[int32]uint64 // reference -> its slot's offset in the users' bank 0
	listed []int32          // the references, in the order nvlink lists them
	rels   []OutRel         // every user's .rel.nv.constant0.<k>, in output order
	banks  [][]int32        // by file ID: the users' banks of the file's kernels, in section order
}

// lists reports whether the link's bound references include symbol id
// (with a slot or, when no kept kernel uses them, without).
func (b *boundRefs) lists(id int32) bool {
	return b != nil && slices.Contains(b.listed, id)
}

// slotOf reports the slot of symbol id when it is a bound reference with
// one (nil b: none).
func (b *boundRefs) slotOf(id int32) (uint64, bool) {
	if b == nil {
		return 0, false
	}
	off, ok := b.slot[id]
	return off, ok
}

// isBoundRef reports a bound texture or surface reference: an undefined
// global of type 10 or 12.
func isBoundRef(s *elf.Symbol) bool {
	t := s.Type()
	return (t == sttTexture || t == sttSurface) && s.Bind() != elf.STBLocal && s.Shndx == elf.SHNUndef
}

// layoutBoundRefs gives the link's bound references their slots (see the
// file comment). The references are taken in nvlink's order: the textures,
// then the surfaces, each latest first, then sorted as boundOrder does.
func layoutBoundRefs(ctx *Context) {
	if !ctx.hasBoundRefs {
		return // (no scan of the globals for the links without any)
	}
	var textures, surfaces []int32
	for _, id := range ctx.Globals {
		s := ctx.Syms[id]
		if s.Sec >= 0 || s.Shndx != elf.SHNUndef {
			continue
		}
		switch s.Type() {
		case sttTexture:
			textures = append(textures, id)
		case sttSurface:
			surfaces = append(surfaces, id)
		}
	}
	if len(textures)+len(surfaces) == 0 {
		return
	}
	isRef := map[int32]bool{}
	var refs []int32
	for _, l := range [][]int32{textures, surfaces} {
		for k := len(l) - 1; k >= 0; k-- {
			refs = append(refs, l[k])
			isRef[l[k]] = true
		}
	}
	// The code sections whose relocations name a reference.
	direct := map[int32]bool{}
	for _, o := range ctx.Objs {
		o.eachRelocSection(func(t int, rels []elf.Rela) {
			if o.SecMap[t] < 0 || o.F.Sections[t].Flags&elf.SHFExecInstr == 0 {
				return
			}
			for _, r := range rels {
				if int(r.Sym) < len(o.SymMap) && isRef[o.SymMap[r.Sym]] {
					direct[o.SecMap[t]] = true
				}
			}
		})
	}
	// Every kernel's bank 0 counts for where the slots start; the kernels
	// that reach a reference get them.
	var base, align uint64 = 0, 1
	var users []*OutSec
	for _, s := range ctx.Secs {
		text, ok := boundBankText(ctx, s)
		if !ok {
			continue
		}
		base, align = max(base, s.Size), max(align, s.Align)
		for c := range ctx.reachableCode(text) {
			if direct[c] {
				users = append(users, s)
				break
			}
		}
	}
	if len(users) == 0 {
		// No kernel left uses them (--kernels-used removed those that
		// did): nvlink still names them (crafted bound-references-unused).
		ctx.bound = &boundRefs{listed: refs, banks: make([][]int32, len(ctx.Objs))}
		return
	}
	base = alignUp(base, align)
	order := boundOrder(refs)
	b := &boundRefs{slot: make(map[int32]uint64, len(order)), listed: refs, banks: make([][]int32, len(ctx.Objs))}
	for k, id := range order {
		b.slot[id] = base + uint64(k)*boundSlotSize
	}
	for k := len(order) - 1; k >= 0; k-- {
		id := order[k]
		typ := uint32(rTexHeaderIndex)
		if ctx.Syms[id].Type() == sttSurface {
			typ = rSurfHeaderIndex
		}
		b.rels = append(b.rels, OutRel{Offset: b.slot[id], Sym: id, Type: typ})
	}
	for _, s := range users {
		s.Size = base + uint64(len(order))*boundSlotSize
		b.banks[s.infoObj] = append(b.banks[s.infoObj], s.ID)
	}
	ctx.bound = b
}

// boundBankText reports the code section of the kernel whose constant bank
// 0 s is (.nv.constant0.<k>, for .text.<k>: its input's sh_info).
func boundBankText(ctx *Context, s *OutSec) (int32, bool) {
	if !strings.HasPrefix(s.Name, ".nv.constant0.") || s.Dead {
		return -1, false
	}
	text := s.InfoSec // (mapped by dce; -1: none)
	if text < 0 || ctx.Secs[text].Dead {
		return -1, false
	}
	return text, true
}

// boundOrder is the order nvlink 11.8 lays the slots out in, from the
// lowest offset, for the references in the order they were listed. nvlink
// sorts its list by alignment and size, equal for all of them, with a
// merge sort that deals the list out to two halves alternately, each dealt
// card going on top of its half (which reverses them), sorts each half so,
// and puts the first half before the second. For the references p0 p1 …
// as listed: p1 p0; p0 p2 p1; p1 p3 p0 p2; p4 p0 p2 p1 p3 (and so on, up
// to the nine of testdata/crafted/bound-references' notes).
func boundOrder(l []int32) []int32 {
	return nvlinkSort(l, func(a, b int32) bool { return false })
}

// nvlinkSort sorts l as nvlink 11.8's list merge sort does: the list dealt
// out to two halves alternately, each dealt card going on top of its half
// (which reverses them), each half sorted so, then merged, the first
// half's first on ties. less may report every pair equal (boundOrder).
func nvlinkSort[T any](l []T, less func(a, b T) bool) []T {
	if len(l) <= 1 {
		return l
	}
	var a, b []T
	for k, x := range l {
		if k%2 == 0 {
			a = append(a, x)
		} else {
			b = append(b, x)
		}
	}
	slices.Reverse(a) // (each dealt card on top of its half)
	slices.Reverse(b)
	a, b = nvlinkSort(a, less), nvlinkSort(b, less)
	out := make([]T, 0, len(l))
	for len(a) > 0 && len(b) > 0 {
		if less(b[0], a[0]) {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// addBoundNames enters the names nvlink makes while laying the slots out,
// after the call graph's: the module bank .nv.constant0 (in both string
// tables; no such section is written) and a $NVLINKBINDLESSOFF_<name>
// symbol per reference (.strtab only; no such symbol is written).
func addBoundNames(ctx *Context) {
	if ctx.bound == nil {
		return
	}
	ctx.addSecName(moduleBank0, -1)
	for _, id := range ctx.bound.listed {
		ctx.addStr(ctx.Str, bindlessOff+ctx.Syms[id].Name, nil)
	}
}
