package hostobj

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
		for _, k := range o.HostKernels {
			if k == "" || strings.IndexByte(k, 0) >= 0 {
				t.Fatalf("host kernel pattern %q: empty or holding a NUL", k)
			}
		}
		if len(o.HostKernels) > 0 && !o.HostInfo {
			t.Fatal("host kernel patterns without HostInfo")
		}
	})
}

var hashRE = regexp.MustCompile(`__[0-9a-f]{8}_`)

// TestHostInfo reads the host reference information of nvcc -dc objects
// (testdata/crafted/host-info*): the kernel patterns, external then
// internal, and its absence from a g++ object.
func TestHostInfo(t *testing.T) {
	for _, c := range []struct {
		path string
		info bool
		want []string
	}{
		{"../../testdata/crafted/host-info/a.o", true, []string{"_Z6used_k*"}},
		{"../../testdata/crafted/host-info-none/e.o", true, nil},
		// (The internal kernels' prefix holds a hash of the compilation:
		// "__nv_static_25__2da0c09a_4_c_cu_23f90cbb_" in the committed
		// object; hashed here as <h>.)
		{"../../testdata/crafted/host-info-patterns/c.o", true, []string{"_Z2tk*", "_Z7via_api*",
			"__nv_static_25__<h>_4_c_cu_23f90cbb_*2tk*",
			"__nv_static_25__<h>_4_c_cu_23f90cbb_*36_GLOBAL__N__<h>_4_c_cu_23f90cbb6anon_k*",
			"__nv_static_25__<h>_4_c_cu_23f90cbb_*8static_k*"}},
		{"../../testdata/crafted/host-info-host-object/ho.o", false, nil},
	} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		got := make([]string, len(o.HostKernels))
		for k, p := range o.HostKernels {
			got[k] = hashRE.ReplaceAllString(p, "__<h>_")
		}
		if o.HostInfo != c.info || !slices.Equal(got, c.want) {
			t.Errorf("%s: HostInfo %v, kernels %q; want %v, %q", c.path, o.HostInfo, o.HostKernels, c.info, c.want)
		}
	}
}
