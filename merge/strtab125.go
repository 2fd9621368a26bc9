package merge

import (
	"bytes"
	"slices"
	"strings"
	"unsafe"

	"github.com/warplink/warplink/elf"
)

// Release.StrtabSymbolsLast: nvlink 12.x lays out its string tables
// otherwise than 11.8, from the same history of additions that merge and
// finalize make in 11.8's order (which keeps one way of making them):
//
//   - .strtab: the prototype strings (nvlink's empty one included) first,
//     then the other names in the order 11.8 adds them, less the global
//     symbols' names, which follow last, in the order their symbols were
//     made (the __UFT/__UDT names among them, though their symbols are not
//     written);
//   - both tables: no names of functions dead code elimination removed,
//     nor of the sections made for them (corpus cuda12.5-sm_90 archive:
//     _Z10lib_unusedf; cdp: libcudadevrt's unused functions);
//   - .shstrtab: a kernel's .nv.constant0.<k> before its
//     .rel.nv.constant0.<k> (Release.BankBeforeRel).
//
// relayoutStrings rebuilds both tables so, and moves every offset into
// them that the output holds (section and symbol names, the prototype
// strings of the call graph and .nv.prototype, Context.emptyProto). It
// runs in finalize once every name is in, before the symbols are indexed.
func relayoutStrings(ctx *Context) {
	if !ctx.Rel.StrtabSymbolsLast {
		return
	}
	dead := deadNames(ctx)
	relayoutStrtab(ctx, dead)
	relayoutShStrtab(ctx, dead)
}

// relayoutStrtab rebuilds .strtab in 12.x's order, less the dead names,
// and moves the symbols' and prototype strings' offsets into it.
func relayoutStrtab(ctx *Context, dead map[string]bool) {
	global := make([]bool, len(ctx.Syms))
	for _, id := range ctx.Globals {
		global[id] = true
	}
	deferred := map[string]bool{}
	var last []string
	for _, s := range ctx.Syms {
		if ctx.removed(s) || s.IsSecSym || !global[s.ID] && !(s.Sec < 0 && unifiedTable(s.Name)) {
			continue
		}
		if !deferred[s.Name] {
			deferred[s.Name] = true
			last = append(last, s.Name)
		}
	}

	old := ctx.Str.Bytes()
	str := newStrTabNoOrdinals()
	str.Reserve(len(old)*3/2, nil) // (Reserve takes about 1.6 times what it holds)
	emptyProto := uint32(0)
	usesEmpty := usesString(ctx, ctx.emptyProto)
	// (The empty one where an input's record first had it, else, when a
	// record of nvlink's own uses it, before them.)
	if usesEmpty && !ctx.protoNames[""] {
		emptyProto = str.AddDup("")
	}
	for _, s := range ctx.protoOrder {
		if s != "" {
			str.Add(s)
		} else if usesEmpty {
			emptyProto = str.AddDup("")
		}
	}
	// The nameless placeholder function --preserve-relocs and -g keep
	// (OutSym.emptyName) is named by the empty prototype string when
	// there is one (sweep cuda-malloc), else by an empty string of its
	// own where 11.8's empty prototype string is (sweep barriers,
	// deep-stack and others with --preserve-relocs).
	placeholder := emptyProto
	keeps := slices.ContainsFunc(ctx.Syms, func(s *OutSym) bool { return s.emptyName && !ctx.removed(s) })
	ctx.eachName(old, func(off uint32, s string) {
		if off == ctx.emptyProto && off != 0 && keeps && placeholder == 0 {
			placeholder = str.AddDup("")
			return
		}
		if off == ctx.emptyProto || s != "" && ctx.protoNames[s] || deferred[s] || dead[s] {
			return
		}
		str.Add(s)
	})
	for _, s := range last {
		str.Add(s)
	}
	move := func(off uint32) uint32 {
		if off == ctx.emptyProto && off != 0 {
			return emptyProto
		}
		s, _ := elf.CString(old, off)
		return str.Add(s)
	}
	for _, s := range ctx.Syms {
		switch {
		case s.emptyName:
			s.nameOff = placeholder
		case !ctx.removed(s):
			s.nameOff = move(s.nameOff)
		}
	}
	for _, s := range ctx.Secs {
		if s.gen == nil {
			continue
		}
		if cg := s.gen.callgraph; cg != nil {
			for m, l := range cg.lists {
				if elf.CallgraphProtoBlock(m) {
					for i := range l {
						l[i].callee = int32(move(uint32(l[i].callee)))
					}
				}
			}
		}
		for i := range s.gen.prototype {
			s.gen.prototype[i].callee = int32(move(uint32(s.gen.prototype[i].callee)))
		}
	}
	ctx.emptyProto = emptyProto
	ctx.Str = str
}

// relayoutShStrtab rebuilds .shstrtab less the dead names, each kernel's
// .nv.constant0.<k> before its .rel.nv.constant0.<k> under BankBeforeRel,
// and moves the sections' name offsets into it.
func relayoutShStrtab(ctx *Context, dead map[string]bool) {
	oldSh := ctx.ShStr.Bytes()
	banks := map[string]bool{} // the .nv.constant0.<k> names, for BankBeforeRel
	if ctx.Rel.BankBeforeRel {
		eachString(oldSh, func(_ uint32, s string) {
			if strings.HasPrefix(s, ".nv.constant0.") {
				banks[s] = true
			}
		})
	}
	sh := NewStrTab()
	sh.Reserve(len(oldSh)*3/2, nil)
	ctx.eachName(oldSh, func(_ uint32, s string) {
		if dead[s] {
			return
		}
		if k, ok := strings.CutPrefix(s, ".rel.nv.constant0."); ok && banks[".nv.constant0."+k] {
			sh.Add(".nv.constant0." + k)
		}
		sh.Add(s)
	})
	for _, s := range ctx.Secs {
		if s.Dead {
			continue
		}
		n, _ := elf.CString(oldSh, s.nameOff)
		s.nameOff = sh.Add(n)
	}
	ctx.ShStr = sh
}

// usesString reports whether a prototype string of the call graph or
// .nv.prototype is at .strtab offset off (> 0): nvlink 12.x has its empty
// prototype string only then (corpus printf: a link with an undefined
// function, vprintf, but no such entry, has none).
func usesString(ctx *Context, off uint32) bool {
	if off == 0 {
		return false
	}
	for _, s := range ctx.Secs {
		if s.gen == nil {
			continue
		}
		if cg := s.gen.callgraph; cg != nil {
			for m, l := range cg.lists {
				for _, e := range l {
					if elf.CallgraphProtoBlock(m) && uint32(e.callee) == off {
						return true
					}
				}
			}
		}
		for _, e := range s.gen.prototype {
			if uint32(e.callee) == off {
				return true
			}
		}
	}
	return false
}

// removed: s is a symbol the output does not have (dead code elimination
// removed it or its section).
func (ctx *Context) removed(s *OutSym) bool {
	return s.dead || s.Sec >= 0 && ctx.Secs[s.Sec].Dead
}

// eachString calls fn for every string of an encoded table but the
// leading empty one, with its offset, in table order. The strings alias
// b (no copies: a table holds hundreds of thousands): fn may keep them
// only while b is neither changed nor freed.
func eachString(b []byte, fn func(off uint32, s string)) {
	for off := 1; off < len(b); {
		n := bytes.IndexByte(b[off:], 0)
		if n < 0 {
			return
		}
		fn(uint32(off), unsafe.String(&b[off], n))
		off += n + 1
	}
}

// deadNames are the names nvlink 12.x never makes for the symbols dead
// code elimination removed (libcudadevrt's undefined functions nothing
// calls too) and, for functions, the sections made or named for them but
// .nv.shared.<k>.
func deadNames(ctx *Context) map[string]bool {
	dead := map[string]bool{}
	for _, s := range ctx.Syms {
		if !ctx.removed(s) || s.IsSecSym {
			continue
		}
		dead[s.Name] = true
		if s.Type() != elf.STTFunc || s.Sec < 0 {
			continue
		}
		k, ok := strings.CutPrefix(ctx.Secs[s.Sec].Name, ".text")
		if !ok {
			continue
		}
		dead[s.Name] = true
		// (Not .nv.shared.<k>: a removed kernel keeps that name, as in
		// 11.8: corpus shared with --kernels-used.)
		for _, p := range []string{".text", ".nv.info", ".rela.text", ".rel.text",
			".nv.constant0", ".rel.nv.constant0", ".rela.nv.constant0", ".nv.constant2"} {
			dead[p+k] = true
		}
	}
	// Nor the names of the function banks moved into kernels' banks
	// (sm_80 -G sinf and cosf: cuda-samples simpleSurfaceWrite with CUDA
	// 12.5; crafted function-constants*/nvlink12.5, where a removed
	// function's own bank, above, goes too).
	for b := range ctx.funcBankOff {
		dead[ctx.Secs[b].Name] = true
	}
	return dead
}
