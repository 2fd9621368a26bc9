package merge

import "io"

// Link runs a whole device link as the driver of passes and returns the
// process exit status nvlink would return. prog is the name diagnostics are
// printed under ("nvlink" or "warplink").
func Link(opts *Options, stdout, stderr io.Writer, prog string) int {
	panic("not yet")
}
