package cli

import (
	"slices"
	"strings"
)

// toolNoteFirst are the options nvlink 13.0's .note.nv.tkinfo note names
// first, in this order, whatever the command line's: its 25 links of the
// CUDA 13.0 corpus give "-arch sm_90 -m 64 -l cudadevrt -L <dir>
// -cpu-arch X86_64 " for "-arch=sm_90 -m64 -cpu-arch=X86_64 a.o b.o
// -L<dir> -lcudadevrt -o out" (nvcc -dlink's) and drop what is absent.
var toolNoteFirst = []string{"arch", "machine", "library", "library-path", "cpu-arch"}

// toolNoteSkip are the options the note leaves out: the output file (the
// corpus names it in every link, the note never), and the options files,
// whose options count as given.
var toolNoteSkip = []string{"output-file", "options-file"}

// noteOption records one option for the note: its short name and the
// value applied ("" for a boolean).
func (p *parser) noteOption(o *option, v string) {
	if slices.Contains(toolNoteSkip, o.long) {
		return
	}
	p.given = append(p.given, givenOption{long: o.long, short: o.short, value: v, boolean: o.kind == kBool})
}

// givenOption is one option the command line gave, for the note.
type givenOption struct {
	long, short, value string
	boolean            bool
}

// toolNoteOptions renders the options as nvlink 13.0 records them in its
// note: "-<short> <value> " each (a boolean without a value), those of
// toolNoteFirst first in its order, each option's values in command-line
// order. Where the rest go is a guess (no link of the corpus has another
// option): after those, in command-line order.
func toolNoteOptions(given []givenOption) string {
	var b strings.Builder
	put := func(g givenOption) {
		b.WriteString("-" + g.short + " ")
		if !g.boolean {
			b.WriteString(g.value + " ")
		}
	}
	for _, name := range toolNoteFirst {
		for _, g := range given {
			if g.long == name {
				put(g)
			}
		}
	}
	for _, g := range given {
		if !slices.Contains(toolNoteFirst, g.long) {
			put(g)
		}
	}
	return b.String()
}
