package demangle

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestAgainstCuFilt compares with cu++filt 11.8's output recorded in
// testdata/cufilt.txt for testdata/names.txt: every function name of the
// corpus and a set of constructs device code uses.
func TestAgainstCuFilt(t *testing.T) {
	names := readLines(t, "testdata/names.txt")
	want := readLines(t, "testdata/cufilt.txt")
	if len(names) != len(want) || len(names) < 150 {
		t.Fatalf("%d names, %d expected lines", len(names), len(want))
	}
	same := 0
	for i, n := range names {
		got, ok := Demangle(n)
		if got != want[i] {
			t.Errorf("Demangle(%q) = %q (ok=%v), cu++filt %q", n, got, ok, want[i])
			continue
		}
		if ok == (got == n) {
			t.Errorf("Demangle(%q): ok=%v with result %q", n, ok, got)
		}
		same++
	}
	t.Logf("%d/%d names as cu++filt prints them", same, len(names))
}

// TestLiveCuFilt reruns the comparison with the installed cu++filt.
func TestLiveCuFilt(t *testing.T) {
	path, err := exec.LookPath("cu++filt")
	if err != nil {
		t.Skip("cu++filt not installed")
	}
	in, err := os.ReadFile("testdata/names.txt")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := os.ReadFile("testdata/cufilt.txt")
	if !bytes.Equal(out, rec) {
		t.Errorf("installed cu++filt disagrees with testdata/cufilt.txt")
	}
	sc := bufio.NewScanner(bytes.NewReader(in))
	for sc.Scan() {
		got, _ := Demangle(sc.Text())
		c := exec.Command(path, sc.Text())
		w, err := c.Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.TrimSuffix(string(w), "\n"); got != want {
			t.Errorf("%s: got %q, cu++filt %q", sc.Text(), got, want)
		}
	}
}

func FuzzDemangle(f *testing.F) {
	for _, n := range []string{"_Z4polyILi4EEff", "_ZNK6Square4areaEf", "_Z1fPA2_A3_i", "_ZN1A1BIiEC1Ev"} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := Demangle(s)
		if !ok && out != s {
			t.Fatalf("refused %q but returned %q", s, out)
		}
	})
}

// TestHostileSubstitutions: a parameter list where each pointer-to-function
// type names the previous one twice grows its text twofold per parameter;
// such names are refused quickly instead.
func TestHostileSubstitutions(t *testing.T) {
	seq := func(n int) string { // substitution n (0 = S_)
		if n == 0 {
			return "S_"
		}
		return "S" + strings.ToUpper(strconv.FormatInt(int64(n-1), 36)) + "_"
	}
	name := "_Z1fPFvvE" // candidates: FvvE = 0, PFvvE = 1
	prev := 1
	for k := 0; k < 40; k++ {
		name += "PFv" + seq(prev) + seq(prev) + "E"
		prev += 2
	}
	start := time.Now()
	out, ok := Demangle(name)
	if ok || out != name {
		t.Fatalf("accepted a %d-byte result", len(out))
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v", d)
	}
	// A few levels are an ordinary name.
	short := "_Z1fPFvvEPFvS0_S0_E"
	if got, ok := Demangle(short); !ok || got != "f(void (*)(), void (*)(void (*)(), void (*)()))" {
		t.Fatalf("Demangle(%s) = %q, %v", short, got, ok)
	}
}
