package linkflags

import (
	"fmt"
	"regexp"
	"testing"
)

// TestParseVersion names the forms read and those refused; "12.-1" read
// as 119 and "922337203685477580.7" as the largest int (a major with a
// sign, or of any length) before the digits were checked.
func TestParseVersion(t *testing.T) {
	for s, want := range map[string]int{
		"12.5": 125, "11.8": 118, "125": 125, "13.0": 130, "1.0": 10, "10": 10, "0125": 125, "9999.9": 99999,
		"x": 0, "12.x": 0, "1.10": 0, "12.-1": 0, "+12.5": 0, "-12.5": 0, " 12.5": 0, "12.5 ": 0, "12.": 0, ".5": 0,
		"12.5.1": 0, "0.5": 0, "00.5": 0, "9": 0, "": 0, "922337203685477580.7": 0, "10000.0": 0, "1_2.5": 0,
	} {
		got, ok := ParseVersion(s)
		if got != want && ok || ok != (want != 0) {
			t.Errorf("ParseVersion(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
}

// versionForm is ParseVersion's grammar.
var versionForm = regexp.MustCompile(`^(?:[0-9]{1,4}\.[0-9]|[0-9]{2,5})$`)

// FuzzParseVersion checks ParseVersion against its grammar (versionForm,
// with a major that is not zero) and its result against the canonical
// spelling "MAJOR.MINOR", which reads back the same.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"12.5", "11.8", "125", "13.0", "12.-1", "1.10", "922337203685477580.7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParseVersion(s)
		want := versionForm.MatchString(s)
		if want {
			var digits int
			for _, c := range s {
				if c != '.' {
					digits = digits*10 + int(c-'0')
				}
			}
			want = digits >= 10
		}
		if ok != want {
			t.Fatalf("ParseVersion(%q) ok %v, the grammar says %v", s, ok, want)
		}
		if !ok {
			return
		}
		if m, ok := ParseVersion(fmt.Sprintf("%d.%d", n/10, n%10)); !ok || m != n {
			t.Fatalf("ParseVersion(%q) = %d, whose spelling reads as %d, %v", s, n, m, ok)
		}
	})
}
