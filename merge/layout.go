package merge

// layout: place data inside the memory-space sections.
//
// Inputs: merged sections, SymMap markers for section-local data.
// Outputs: Context.dataVal (new offsets of local data, made by
// layoutShared), section sizes.
// Invariants: .text is never re-laid out. Per-entry shared memory
// (.nv.shared.<k>) grows by the window the architecture reserves
// (1 KiB on sm_90) and holds its variables sorted by alignment, largest
// first, each at the next multiple of its alignment. In a relocatable cubin
// the st_value of an unallocated shared variable is its alignment.
// Common symbols are allocated at the end of .nv.global (created after the
// merged sections when no input had one). Bound texture and surface
// references get their slots in the kernels' constant bank 0 (boundref.go).

import (
	"strings"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
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
	allocateCommons(ctx)
	layoutBoundRefs(ctx)
	checkConstantBanks(ctx)
	layoutShared(ctx)
	layoutFunctionBanks(ctx)
	ctx.secNamesDone = true // (see Context.secNamesDone)
	// (No pass reads the sections noteSecName listed after this, and
	// none is noted: their lists go.)
	ctx.bankSecs, ctx.sharedSecs, ctx.moduleSharedSecs, ctx.funcBankSecs = nil, nil, nil, nil
	if ctx.keep.SharedSyms {
		setSharedSymValues(ctx)
	}
	return nil
}

// setSharedSymValues gives -g's and --preserve-relocs' shared-data
// symbols (objRare.sharedSyms, kept only under keepPolicy.SharedSyms:
// no walk over every object's record otherwise) their laid-out offsets,
// past the window the driver reserves (as nvlink writes them; the code's
// own offsets do not include it).
func setSharedSymValues(ctx *Context) {
	for _, o := range ctx.Objs {
		if o.rare == nil {
			continue
		}
		for in, id := range o.rare.sharedSyms {
			ctx.Syms[id].Value = ctx.dataVal[dataKey{int32(o.ID), in}] + reservedShared(ctx.Header.SM())
		}
	}
}

// noteSecName notes output section id, just made with that name, when
// layout will look for it: in bankSecs, a module-scope constant bank
// (.nv.constantN without an entry suffix), in sharedSecs, an entry's
// .nv.shared.<k>, in moduleSharedSecs, the module's .nv_debug.shared
// (so that no shared section's name is compared again), in funcBankSecs, a
// function's or kernel's bank (funcBankPrefix). (While the name is in
// the cache: layout's passes over every section's name took a tenth of
// it at 100,000 objects.)
func (ctx *Context) noteSecName(id int32, name string) {
	switch {
	case isModuleBankName(name):
		ctx.bankSecs = append(ctx.bankSecs, id)
	case name == moduleShared:
		ctx.moduleSharedSecs = append(ctx.moduleSharedSecs, id)
	case isSharedName(name):
		ctx.sharedSecs = append(ctx.sharedSecs, id)
	case strings.HasPrefix(name, funcBankPrefix):
		ctx.funcBankSecs = append(ctx.funcBankSecs, id)
	}
}

// isModuleBankName reports the module-scope constant banks: .nv.constantN
// without an entry's suffix.
func isModuleBankName(n string) bool {
	rest, ok := strings.CutPrefix(n, ".nv.constant")
	return ok && !strings.Contains(rest, ".")
}

// allocateCommons places every global still SHN_COMMON after resolution
// into .nv.global, as nvlink 11.8 does: in reverse order of the symbols'
// creation, each at the next multiple of its alignment (st_value of the
// common that resolution kept: the first one), with the largest size any
// file declared.
func allocateCommons(ctx *Context) {
	if !ctx.hasCommon {
		return // (no walk over every global's record)
	}
	var sec *OutSec
	for k := len(ctx.Globals) - 1; k >= 0; k-- {
		s := ctx.Syms[ctx.Globals[k]]
		if s.Shndx != elf.SHNCommon || s.Sec >= 0 {
			continue
		}
		if sec == nil {
			if id, ok := ctx.secNamed(".nv.global"); ok {
				sec = ctx.Secs[id]
			} else {
				sec = ctx.newSection(".nv.global", elf.SHTNobits, elf.SHFAlloc|elf.SHFWrite, 1, 0)
				sec.Nobits = true
				sec.SymID = newSecSym(ctx, sec.Name, sec.ID, 0)
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
	for _, id := range ctx.bankSecs {
		if s := ctx.Secs[id]; s.Size > constantBankLimit {
			ctx.Diags.Errorf(diag.At(diag.PhaseLimits, 0, int(s.ID)), "File uses too much global constant data (0x%x bytes, 0x%x max)", s.Size, constantBankLimit)
		}
	}
}
