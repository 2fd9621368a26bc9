package merge

// dump: the --warplink-dump view of the link state after a pass.

import (
	"fmt"
	"io"
	"os"

	"github.com/warplink/warplink/elf"
)

// dumpState prints what the passes so far built: input objects, output
// sections and symbols in creation order, or the output file itself once
// write has run.
func dumpState(ctx *Context, w io.Writer) {
	if w == nil {
		w = os.Stderr
	}
	if ctx.Out != nil {
		if f, err := elf.Parse(ctx.Out); err == nil {
			elf.Dump(w, f)
			return
		}
	}
	fmt.Fprintf(w, "objects (%d):\n", len(ctx.Objs))
	for _, o := range ctx.Objs {
		fmt.Fprintf(w, "  [%d] %s: %d sections, %d symbols\n", o.ID, o.Name, len(o.F.Sections), len(o.F.Symbols))
	}
	if ctx.resNames > 0 {
		fmt.Fprintf(w, "resolved names: %d\n", ctx.resNames)
	}
	fmt.Fprintf(w, "sections (%d, creation order):\n", len(ctx.Secs))
	for _, s := range ctx.Secs {
		state := ""
		if s.Dead {
			state = " dead"
		}
		fmt.Fprintf(w, "  #%d %s type=%s size=%#x align=%d pieces=%d index=%d%s\n",
			s.ID, s.Name, elf.SectionTypeName(s.Type), s.Size, s.Align, len(s.Pieces()), ctx.sectionIndex(s.ID), state)
	}
	fmt.Fprintf(w, "symbols (%d, creation order; %d positive, %d negative):\n", len(ctx.Syms), len(ctx.Locals), len(ctx.Globals))
	for _, s := range ctx.Syms {
		sec := "UND"
		if s.Sec >= 0 {
			sec = ctx.Secs[s.Sec].Name
		}
		state := ""
		if s.dead {
			state = " dead"
		}
		fmt.Fprintf(w, "  #%d %s %s/%s other=%#x value=%#x size=%#x in %s index=%d%s\n",
			s.ID, s.Name, elf.SymBindName(s.Bind()), elf.SymTypeName(s.Type()), s.Other, s.Value, s.Size, sec, s.Index, state)
	}
}
