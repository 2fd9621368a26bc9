package hostobj

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf/fatbin"
)

const corpus = "../../testdata/corpus/cuda11.8-sm_90"

func TestCorpus(t *testing.T) {
	objs, _ := filepath.Glob(filepath.Join(corpus, "*", "*.o"))
	if len(objs) < 20 {
		t.Fatalf("%d corpus objects", len(objs))
	}
	for _, p := range objs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !o.HasDeviceCode() || o.NonRelocatable {
			t.Fatalf("%s: %+v", p, o)
		}
		// nvcc names the module after the source file: _<hash>_<len>_<tu>_cu_<hash>.
		tu := strings.TrimSuffix(filepath.Base(p), ".o")
		if !strings.Contains(o.ModuleID, "_"+tu+"_cu_") {
			t.Errorf("%s: module id %q", p, o.ModuleID)
		}
		if _, err := fatbin.Parse(o.Fatbin); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// rename replaces a section name in the section-name string table, as the
// nvlink probes did to show which sections matter.
func rename(t *testing.T, b []byte, from, to string) []byte {
	t.Helper()
	out := bytes.Replace(b, []byte(from+"\x00"), []byte(to+"\x00"), 1)
	if bytes.Equal(out, b) {
		t.Fatalf("no %s", from)
	}
	return out
}

func TestGates(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(corpus, "archive", "lib2.o"))
	if err != nil {
		t.Fatal(err)
	}
	// Without .nvFatBinSegment nvlink ignores __nv_relfatbin (confirmed:
	// "Undefined reference" for the symbols the object defines).
	o, err := Parse(rename(t, b, SegmentSection, ".nvFatBinSegmenX"))
	if err != nil || o.HasDeviceCode() {
		t.Errorf("no segment: %+v %v", o, err)
	}
	// A relocatable fatbin moved to .nv_fatbin is not read either.
	o, err = Parse(rename(t, b, RelFatbinSection, ".nv_fatbin\x00\x00\x00\x00"))
	if err != nil || o.HasDeviceCode() || !o.NonRelocatable {
		t.Errorf(".nv_fatbin: %+v %v", o, err)
	}
	// __nv_module_id is optional.
	o, err = Parse(rename(t, b, ModuleIDSection, "__nv_modulX_id"))
	if err != nil || !o.HasDeviceCode() || o.ModuleID != "" {
		t.Errorf("no module id: %+v %v", o, err)
	}
}

func TestPlainHostObject(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "h.c"), []byte("int f(void){return 1;}\n"), 0o644)
	if out, err := exec.Command(cc, "-c", "-o", filepath.Join(dir, "h.o"), filepath.Join(dir, "h.c")).CombinedOutput(); err != nil {
		t.Skipf("cc: %v %s", err, out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "h.o"))
	o, err := Parse(b)
	if err != nil || o.HasDeviceCode() || o.ModuleID != "" {
		t.Errorf("%+v %v", o, err)
	}
}

func FuzzHostObj(f *testing.F) {
	for _, p := range []string{"archive/lib.o", "archive/main.o"} {
		b, err := os.ReadFile(filepath.Join(corpus, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := Parse(b)
		if err != nil {
			return
		}
		if o.HasDeviceCode() {
			fatbin.Parse(o.Fatbin)
		}
	})
}
