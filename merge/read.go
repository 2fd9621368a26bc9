package merge

// read: load every input and decode its cubins, in parallel.
//
// Inputs: Options.Inputs in command-line order. Outputs: Context.Objs,
// indexed by file ID (the position of the cubin in the expanded input list).
// Invariants: file IDs are assigned before any goroutine starts; results are
// stored by index.

import (
	"fmt"
	"os"

	"github.com/warplink/warplink/elf"
)

func read(ctx *Context) error {
	type unit struct {
		name string
		data []byte
	}
	var units []unit
	for _, in := range ctx.Opts.Inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			ctx.Diags.Fatalf([3]int{0, len(units), 0}, "Could not open input file '%s'", in)
			return errFatal
		}
		units = append(units, unit{in, data})
	}
	ctx.Objs = make([]*Obj, len(units))
	errs := make([]error, len(units))
	parallelFor(len(units), ctx.Opts.Threads, func(i int) error {
		f, err := elf.Parse(units[i].data)
		if err != nil {
			errs[i] = fmt.Errorf("%s: %v", units[i].name, err)
			return nil
		}
		ctx.Objs[i] = &Obj{ID: i, Name: units[i].name, Data: units[i].data, F: f}
		return nil
	})
	for i, err := range errs {
		if err != nil {
			ctx.Diags.Fatalf([3]int{0, i, 0}, "%v", err)
			return errFatal
		}
	}
	if len(ctx.Objs) > 0 {
		ctx.Header = ctx.Objs[0].F.Header
	}
	return nil
}
