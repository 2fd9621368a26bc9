package merge

// resolve: decide, for every global or weak name, which definition wins.
//
// Inputs: Context.Objs (parsed). Outputs: Context.Res, diagnostics for
// multiple definitions and undefined references.
// Invariants: the winner depends only on the candidates in file order; the
// fold is the same serial fold whatever the shard count.

import (
	"github.com/warplink/warplink/elf"
)

// symState is how a file states a global name.
type symState uint8

const (
	stUndef symState = iota
	stCommon
	stWeak
	stStrong
)

type cand struct {
	file, index int32
	state       symState
	isFunc      bool
	size        uint64
	regs        int32
	ptx         uint32
	other       uint8
}

func candOf(o *Obj, i int) cand {
	s := &o.F.Symbols[i]
	c := cand{file: int32(o.ID), index: int32(i), isFunc: s.Type() == elf.STTFunc, size: s.Size, other: s.Other, regs: -1, ptx: o.F.Header.Version}
	switch {
	case s.Shndx == elf.SHNUndef:
		c.state = stUndef
	case s.Shndx == elf.SHNCommon:
		c.state = stCommon
	case s.Bind() == elf.STBWeak:
		c.state = stWeak
	default:
		c.state = stStrong
	}
	if c.isFunc && c.state == stWeak {
		c.regs = regCount(o, i)
	}
	return c
}

// regCount is a function's register count: the high byte of its .text
// sh_info, else its EIATTR_REGCOUNT record.
func regCount(o *Obj, i int) int32 {
	s := &o.F.Symbols[i]
	if int(s.Shndx) < len(o.F.Sections) {
		if r := o.F.Sections[s.Shndx].Info >> 24; r != 0 {
			return int32(r)
		}
	}
	for j := range o.F.Sections {
		sec := &o.F.Sections[j]
		if sec.Type != elf.SHTCudaInfo || sec.Name != ".nv.info" {
			continue
		}
		attrs, err := elf.ParseNvInfo(sec.Data)
		if err != nil {
			continue
		}
		for k := range attrs {
			a := &attrs[k]
			if a.Code == elf.EIAttrRegcount && a.U32(0) == uint32(i) {
				return int32(a.U32(4))
			}
		}
	}
	return -1
}

func resolve(ctx *Context) error {
	ctx.Res = map[string]*Resolution{}
	type entry struct {
		res  *Resolution
		best cand
		has  bool
	}
	tab := map[string]*entry{}
	var order []string
	for _, o := range ctx.Objs {
		for i := 1; i < len(o.F.Symbols); i++ {
			s := &o.F.Symbols[i]
			if s.Bind() == elf.STBLocal {
				continue
			}
			c := candOf(o, i)
			e := tab[s.Name]
			if e == nil {
				e = &entry{res: &Resolution{File: -1, Index: -1, First: int32(o.ID)}}
				tab[s.Name] = e
				order = append(order, s.Name)
			}
			e.res.Other |= s.Other & 0x08
			if c.state == stUndef {
				continue
			}
			if !e.has {
				e.best, e.has = c, true
				continue
			}
			b := e.best
			switch {
			case c.state == stStrong && b.state == stStrong:
				ctx.Diags.Errorf([3]int{1, int(c.file), int(c.index)}, "Multiple definition of '%s' in '%s', first defined in '%s'", s.Name, o.Name, ctx.Objs[b.file].Name)
			case c.state == stStrong:
				e.best = c
			case b.state == stStrong:
			case c.state == stWeak && b.state == stWeak:
				// nvlink 11.8 keeps the first weak definition whatever the
				// register counts (testdata/crafted/weak-vs-weak-*); the
				// seeds' fewer-registers rule is nvlink 13's.
				if ctx.Opts.WeakRule == "regcount" && c.isFunc && c.regs >= 0 && b.regs >= 0 {
					if c.regs < b.regs || (c.regs == b.regs && c.ptx > b.ptx) {
						e.best = c
					}
				}
			case c.state == stWeak && b.state == stCommon:
				e.best = c
			case c.state == stCommon && b.state == stCommon:
				if c.size > b.size {
					b.size = c.size
					e.best = b
				}
			}
		}
	}
	for _, name := range order {
		e := tab[name]
		if e.has {
			e.res.File, e.res.Index, e.res.Size = e.best.file, e.best.index, e.best.size
		}
		ctx.Res[name] = e.res
	}
	return nil
}
