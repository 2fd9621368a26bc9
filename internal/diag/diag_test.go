package diag

import (
	"bytes"
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
