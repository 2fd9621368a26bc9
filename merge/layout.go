package merge

// layout: place data inside the memory-space sections (shared, local,
// global, constant banks).
//
// Inputs: merged sections and their pieces. Outputs: piece offsets and
// section sizes. Invariants: .text is never re-laid out.

func layout(ctx *Context) error {
	return nil
}
