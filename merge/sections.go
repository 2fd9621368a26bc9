package merge

// Generated output sections: storage for them (allocSec, from a slab)
// and their creation (newSection), shared by merge, layout, relocate and
// finalize.
// Invariant: a section's creation order is its order inside its bucket
// (orderSections sorts stably), so callers create sections in nvlink's
// order.

// allocSec returns storage for a new output section from a slab.
func (ctx *Context) allocSec() *OutSec {
	if len(ctx.secSlab) == cap(ctx.secSlab) {
		ctx.secSlab = make([]OutSec, 0, 1024)
	}
	ctx.secSlab = ctx.secSlab[:len(ctx.secSlab)+1]
	return &ctx.secSlab[len(ctx.secSlab)-1]
}

// newSection creates a generated output section.
func (ctx *Context) newSection(name string, typ uint32, flags, align, entsize uint64) *OutSec {
	s := ctx.allocSec()
	*s = OutSec{ID: int32(len(ctx.Secs)), Name: name, Type: typ, Flags: flags, Align: align, Entsize: entsize,
		InfoSym: -1, InfoSec: -1, SymID: -1}
	ctx.Secs = append(ctx.Secs, s)
	if !ctx.secNamesDone {
		ctx.secByName[name] = s.ID
		ctx.noteSecName(s.ID, name)
	}
	ctx.addStr(ctx.ShStr, name, &s.nameOff)
	return s
}
