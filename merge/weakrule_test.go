package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/linkflags"
)

// TestWeakRuleRegcount links the weakregs corpus (three objects, each with
// the weak template _Z4polyILi4EEff at 24 registers) with one object's
// EIATTR_REGCOUNT for it lowered to 16, under nvlink 11.8's rule (the
// first definition stays: sm_90 cubins leave the register byte of sh_info
// 0) and under Options.WeakRule "regcount" (the seeds' nvlink 13: fewer
// registers win, else the first), and checks whose count the output keeps.
func TestWeakRuleRegcount(t *testing.T) {
	const poly = "_Z4polyILi4EEff"
	src, _ := filepath.Abs("../testdata/corpus/cuda11.8-sm_90/weakregs")
	for _, tc := range []struct {
		lowered string // the object whose count is lowered
		rule    string
		want    uint32
	}{
		{"b", "", 24},
		{"b", "regcount", 16},
		{"c", "regcount", 16},
		{"a", "regcount", 16},
	} {
		dir := t.TempDir()
		var inputs []string
		for _, name := range []string{"a", "b", "c"} {
			b, err := os.ReadFile(filepath.Join(src, name+".cubin"))
			if err != nil {
				t.Fatal(err)
			}
			if name == tc.lowered {
				setRegcount(t, b, poly, 16)
			}
			p := filepath.Join(dir, name+".cubin")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, p)
		}
		out := filepath.Join(dir, "out.cubin")
		var stderr bytes.Buffer
		opts := &Options{Flags: linkflags.Flags{Arch: "sm_90", Output: out, Inputs: inputs}, WeakRule: tc.rule}
		if rc := Link(opts, &bytes.Buffer{}, &stderr, "warplink"); rc != 0 {
			t.Fatalf("%+v: exit %d: %s", tc, rc, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := regcountOf(t, b, poly); got != tc.want {
			t.Errorf("lowered in %s.cubin, rule %q: %s keeps %d registers, want %d", tc.lowered, tc.rule, poly, got, tc.want)
		}
	}
}

// regcountRecord returns the payload of the EIATTR_REGCOUNT record of the
// function named fn in cubin b's .nv.info.
func regcountRecord(t *testing.T, b []byte, fn string) []byte {
	t.Helper()
	f, err := elf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type != elf.SHTCudaInfo || f.SecName(i) != ".nv.info" {
			continue
		}
		attrs, err := elf.ParseNvInfo(s.Data())
		if err != nil {
			t.Fatal(err)
		}
		for k := range attrs {
			if a := &attrs[k]; a.Code == elf.EIAttrRegcount && int(a.U32(0)) < len(f.Symbols) && f.Symbols[a.U32(0)].Name == fn {
				return a.Payload
			}
		}
	}
	t.Fatalf("no EIATTR_REGCOUNT for %s", fn)
	return nil
}

// setRegcount changes fn's EIATTR_REGCOUNT in cubin b, in place.
func setRegcount(t *testing.T, b []byte, fn string, n uint32) {
	p := regcountRecord(t, b, fn) // (elf.Parse aliases b)
	p[4], p[5], p[6], p[7] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
}

// regcountOf reads fn's EIATTR_REGCOUNT in cubin b.
func regcountOf(t *testing.T, b []byte, fn string) uint32 {
	p := regcountRecord(t, b, fn)
	return uint32(p[4]) | uint32(p[5])<<8 | uint32(p[6])<<16 | uint32(p[7])<<24
}
