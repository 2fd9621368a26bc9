package merge

// Function constant banks: before sm_90, ptxas gives a device function's
// own constants (double literals and the like: symbols <f>.const_opt.*)
// a bank-2 section of its own, .nv.constant2.<f>, and reads them as
// c[0x2][off] through CONST_FIELD relocations. A kernel's bank 2 is the
// only one the driver loads, so nvlink 11.8 moves each function's bank
// into the banks of the kernels that reach it, at one offset for all of
// them, and patches the function's code to read it there:
//
//   - the function banks are placed in the reverse of their creation order
//     (callers before callees, as ptxas writes callees first), each at the
//     largest end of the banks of the kernels reaching it (their own
//     constants and the function banks placed for them so far) aligned to
//     its alignment; a kernel's bank ends with the last one it reaches,
//     zeros in the gaps (testdata/crafted/function-constants);
//   - a kernel without a bank 2 of its own gets one, made after
//     .nv.prototype (its name and section symbol there), in the order
//     they are first needed, the kernels reaching one function latest
//     first (crafted function-constants-objects);
//   - the function banks, their section symbols and constant symbols are
//     dropped (their names stay in the string tables), and their
//     relocations are applied with no .nv.resolvedrela entry under
//     --preserve-relocs; a function no kernel reaches (kept by
//     --preserve-relocs or -g) reads offset 0 (crafted
//     function-constants-preserve-relocs);
//   - a weak function's bank keeps every object's copy, one after
//     another, and the null symbol's st_value takes the offset of the
//     last replaced copy's first constant (crafted function-constants-weak).
//
// sm_90 code has no such banks.

import (
	"slices"
	"strings"

	"github.com/warplink/warplink/elf"
)

// funcBankPrefix names the function and kernel banks this moves between.
const funcBankPrefix = ".nv.constant2."

// newKernelBank is a kernel bank 2 to create in finalize: the kernel's
// code section, and the function banks it holds.
type newKernelBank struct {
	text   int32
	align  uint64
	size   uint64
	pieces []Piece
}

// layoutFunctionBanks moves the function banks into the kernels' (above):
// it sets Context.funcBankOff, grows the kernels' existing banks and notes
// the banks to make (Context.newKernelBanks).
func layoutFunctionBanks(ctx *Context) {
	var funcs []int32 // function banks, in creation order
	codeOf := map[int32]int32{}
	for _, id := range ctx.funcBankSecs { // (in ID order: as made)
		s := ctx.Secs[id]
		t := s.InfoSec // (its input's sh_info, mapped by dce; -1: none)
		if s.Dead || t < 0 || ctx.Secs[t].Dead {
			continue
		}
		if f := ctx.Secs[t].InfoSym; f < 0 || ctx.Syms[f].Other&stoCudaEntry != 0 {
			continue
		}
		funcs = append(funcs, s.ID)
		codeOf[s.ID] = t
	}
	if len(funcs) == 0 {
		return
	}
	// The kernels, each with its bank (or the one to make) and the code it
	// can run.
	type kernel struct {
		text  int32
		bank  int32 // -1: none yet
		end   uint64
		align uint64
		code  map[int32]bool
		add   []Piece
		made  bool // in order
	}
	var kernels []*kernel
	for _, t := range ctx.liveTexts {
		f := ctx.Secs[t].InfoSym
		if f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 {
			continue
		}
		k := &kernel{text: t, bank: -1, align: 1, code: ctx.reachableCode(t)}
		if id, ok := ctx.secNamed(funcBankPrefix + strings.TrimPrefix(ctx.Secs[t].Name, ".text.")); ok && !ctx.Secs[id].Dead {
			k.bank, k.end, k.align = id, ctx.Secs[id].Size, ctx.Secs[id].Align
		}
		kernels = append(kernels, k)
	}
	ctx.funcBankOff = map[int32]uint64{}
	var order []*kernel // kernels whose banks to make, as first needed
	for _, b := range slices.Backward(funcs) {
		fb := ctx.Secs[b]
		var users []*kernel
		var end uint64
		for _, k := range kernels {
			if k.code[codeOf[b]] {
				users = append(users, k)
				end = max(end, k.end)
			}
		}
		off := alignUp(end, fb.Align)
		ctx.funcBankOff[b] = off
		fb.Dead = true
		for _, p := range fb.Pieces() {
			o := ctx.Objs[p.Obj]
			if in := &o.F.Sections[p.Sec]; int(in.Info) >= len(o.Drop) || !o.Drop[in.Info] {
				continue
			}
			// A replaced weak copy's constants: nvlink 11.8 writes the
			// offset of its first one into the null symbol's st_value
			// (the last copy's stays).
			for i := range o.F.Symbols {
				if sym := &o.F.Symbols[i]; isDataSym(sym) && int(sym.Shndx) == int(p.Sec) {
					ctx.nullSymValue = off + p.Offset + sym.Value
					break
				}
			}
		}
		for _, k := range slices.Backward(users) {
			if k.bank < 0 && !k.made {
				k.made = true
				order = append(order, k)
			}
		}
		for _, k := range users {
			for _, p := range fb.Pieces() {
				k.add = append(k.add, Piece{Obj: p.Obj, Sec: p.Sec, Offset: off + p.Offset})
			}
			k.end = off + fb.Size
			k.align = max(k.align, fb.Align)
		}
	}
	for _, k := range order {
		ctx.newKernelBanks = append(ctx.newKernelBanks, newKernelBank{text: k.text, align: k.align, size: k.end, pieces: k.add})
	}
	for _, k := range kernels {
		if len(k.add) == 0 || k.bank < 0 {
			continue
		}
		s := ctx.Secs[k.bank]
		ctx.setPieces(s, append(s.Pieces(), k.add...))
		s.Size, s.Align = k.end, k.align
	}
}

// makeKernelBanks creates the kernel banks layoutFunctionBanks noted, with
// their section symbols (after .nv.prototype's).
func makeKernelBanks(ctx *Context) {
	for _, nb := range ctx.newKernelBanks {
		name := funcBankPrefix + strings.TrimPrefix(ctx.Secs[nb.text].Name, ".text.")
		// SHF_INFO_LINK as the functions' banks have it (ptxas 12.x sets
		// it, 11.8 does not: cuda-samples simpleSurfaceWrite sm_80 -G with
		// CUDA 12.5, sinf's and cosf's constants).
		flags := uint64(elf.SHFAlloc)
		if len(nb.pieces) > 0 {
			p := nb.pieces[0]
			flags |= uint64(ctx.Objs[p.Obj].F.Sections[p.Sec].Flags & elf.SHFInfoLink)
		}
		s := ctx.newSection(name, elf.SHTProgbits, flags, nb.align, 0)
		s.InfoSec = nb.text
		ctx.setPieces(s, nb.pieces)
		s.Size = nb.size
		s.SymID = newSecSym(ctx, name, s.ID, 0)
	}
}

// funcBankValue is what a relocation against input symbol in of o, whose
// output section is sec, resolves to when sec is a function bank moved
// into the kernels' banks (ok false otherwise).
func (ctx *Context) funcBankValue(o *Obj, in *elf.Symbol, sec int32) (uint64, bool) {
	off, ok := ctx.funcBankOff[sec]
	if !ok {
		return 0, false
	}
	v := off
	if int(in.Shndx) < len(o.SecOff) {
		v += o.secOff(int(in.Shndx))
	}
	if in.Type() != elf.STTSection {
		v += in.Value
	}
	return v, true
}

// isFuncBank reports an input function bank: .nv.constant2.<f> of a
// function that is no kernel (sh_info names its code).
func (o *Obj) isFuncBank(i int) bool {
	sec := &o.F.Sections[i]
	if !strings.HasPrefix(o.F.SecName(i), funcBankPrefix) {
		return false
	}
	for i := 1; i < len(o.F.Symbols); i++ {
		if s := &o.F.Symbols[i]; s.Type() == elf.STTFunc && uint32(s.Shndx) == sec.Info {
			return s.Other&stoCudaEntry == 0
		}
	}
	return false
}
