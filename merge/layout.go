package merge

// layout: place data inside the memory-space sections.
//
// Inputs: merged sections, SymMap markers for section-local data.
// Outputs: Context.dataVal (new offsets of local data), section sizes.
// Invariants: .text is never re-laid out. Per-entry shared memory
// (.nv.shared.<k>) grows by the window the architecture reserves
// (1 KiB on sm_90) and holds its variables sorted by alignment, largest
// first, each at the next multiple of its alignment. In a relocatable cubin
// the st_value of an unallocated shared variable is its alignment.
// Common symbols are allocated at the end of .nv.global (created after the
// merged sections when no input had one).

import (
	"sort"
	"strings"

	"github.com/warplink/warplink/elf"
)

// reservedShared is the shared memory the driver reserves at the start of
// every CTA's window on the target.
func reservedShared(sm int) uint64 {
	if sm >= 90 {
		return 0x400
	}
	return 0
}

type dataKey struct{ obj, sym int32 }

func layout(ctx *Context) error {
	ctx.dataVal = map[dataKey]uint64{}
	type item struct {
		key         dataKey
		align, size uint64
	}
	bySec := map[int32][]item{}
	for _, o := range ctx.Objs {
		for i, m := range o.SymMap {
			if m > -2 {
				continue
			}
			sec := -2 - m
			if !strings.HasPrefix(ctx.Secs[sec].Name, ".nv.shared.") {
				continue
			}
			s := &o.F.Symbols[i]
			a := s.Value
			if a == 0 || a&(a-1) != 0 {
				a = s.Size
				if a > 8 {
					a = 8
				}
			}
			bySec[sec] = append(bySec[sec], item{dataKey{int32(o.ID), int32(i)}, a, s.Size})
		}
	}
	allocateCommons(ctx)
	checkConstantBanks(ctx)
	base := reservedShared(ctx.Header.SM())
	for _, s := range ctx.Secs {
		if !strings.HasPrefix(s.Name, ".nv.shared.") {
			continue
		}
		items := bySec[s.ID]
		sort.SliceStable(items, func(i, j int) bool { return items[i].align > items[j].align })
		var cur uint64
		for _, it := range items {
			cur = alignUp(cur, it.align)
			ctx.dataVal[it.key] = cur
			cur += it.size
		}
		if len(items) > 0 {
			s.Size = cur
		}
		if s.Size > 0 {
			s.Size += base
		}
	}
	return nil
}

// allocateCommons places every global still SHN_COMMON after resolution
// into .nv.global, as nvlink 11.8 does: in reverse order of the symbols'
// creation, each at the next multiple of its alignment (st_value of the
// common that resolution kept: the first one), with the largest size any
// file declared.
func allocateCommons(ctx *Context) {
	var sec *OutSec
	for k := len(ctx.Globals) - 1; k >= 0; k-- {
		s := ctx.Syms[ctx.Globals[k]]
		if s.Shndx != elf.SHNCommon || s.Sec >= 0 {
			continue
		}
		if sec == nil {
			if id, ok := ctx.secByName[".nv.global"]; ok {
				sec = ctx.Secs[id]
			} else {
				sec = ctx.newSection(".nv.global", elf.SHTNobits, elf.SHFAlloc|elf.SHFWrite, 1, 0)
				sec.Nobits = true
				sec.SymID = newSym(ctx, &OutSym{Name: sec.Name, Info: elf.STTSection, Sec: sec.ID, IsSecSym: true}, false)
			}
		}
		align := max(s.Value, 1)
		sec.Align = max(sec.Align, align)
		s.Sec, s.Shndx, s.Value = sec.ID, 0, alignUp(sec.Size, align)
		sec.Size = s.Value + s.Size
	}
}

// constantBankLimit is the size of a constant bank.
const constantBankLimit = 0x10000

// checkConstantBanks reports module-scope constant banks (.nv.constantN
// without an entry suffix) larger than a bank.
func checkConstantBanks(ctx *Context) {
	for _, s := range ctx.Secs {
		if !strings.HasPrefix(s.Name, ".nv.constant") || strings.Contains(s.Name[len(".nv.constant"):], ".") {
			continue
		}
		if s.Size > constantBankLimit {
			ctx.Diags.Errorf([3]int{4, 0, int(s.ID)}, "File uses too much global constant data (0x%x bytes, 0x%x max)", s.Size, constantBankLimit)
		}
	}
}
