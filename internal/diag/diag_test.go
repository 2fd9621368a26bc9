package diag

import (
	"bytes"
	"strings"
	"testing"
)

// TestPrintStopsAtFirstFatal checks that Print writes in key order and
// nothing after the first fatal diagnostic, whatever the recording order,
// and that the exit status still counts everything recorded.
func TestPrintStopsAtFirstFatal(t *testing.T) {
	var b Bag
	b.Fatalf([3]int{0, 2, 0}, "Could not open input file '%s'", "c.cubin")
	b.Warnf([3]int{0, 0, 0}, "first")
	b.Fatalf([3]int{0, 1, 0}, "Could not open input file '%s'", "b.cubin")
	b.Errorf([3]int{3, 0, 0}, "later")
	var out bytes.Buffer
	b.Print(&out, "nvlink")
	want := "nvlink warning : first\nnvlink fatal   : Could not open input file 'b.cubin'\n"
	if out.String() != want {
		t.Errorf("printed\n%q\nwant\n%q", out.String(), want)
	}
	if c := b.ExitCode(); c != 1 {
		t.Errorf("exit code %d, want 1", c)
	}
	var e Bag
	e.Errorf([3]int{3, 1, 0}, "two")
	e.Errorf([3]int{3, 0, 0}, "one")
	out.Reset()
	e.Print(&out, "nvlink")
	if want := "nvlink error   : one\nnvlink error   : two\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

// TestExit checks a tool's exit (Bag.Exit): in key order before any fatal
// diagnostic it ends the link with status 0 after the diagnostics before
// it, its text for standard output; a fatal one before it wins.
func TestExit(t *testing.T) {
	var b Bag
	b.Warnf(At(PhaseInputs, 0, 1), "first")
	b.Errorf(At(PhaseInputs, 1, 1), "an error")
	b.Fatalf(At(PhaseInputs, 3, 0), "later fatal")
	b.Exit(At(PhaseInputs, 2, 1), "version text\n")
	var w strings.Builder
	b.Print(&w, "nvlink")
	text, ok := b.ExitText()
	if got := w.String(); got != "nvlink warning : first\nnvlink error   : an error\n" || !ok || text != "version text\n" || b.ExitCode() != 0 || !b.Failed() {
		t.Errorf("exit first: %q, %q %v, status %d", got, text, ok, b.ExitCode())
	}
	b.Fatalf(At(PhaseInputs, 1, 2), "earlier fatal")
	if _, ok := b.ExitText(); ok || b.ExitCode() != 1 {
		t.Errorf("a fatal before the exit: ExitText %v, status %d", ok, b.ExitCode())
	}
}
