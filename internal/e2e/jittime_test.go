package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/jit"
)

// TestJITTime checks -time's rows for the compiles as nvlink 11.8 writes
// them (its records of testdata/jit carry no times): the column headings
// only in an empty file, a ptx row per PTX compile in input order, the LTO
// step's lto.nvvm and lto.ptx rows, before the link's own passes.
func TestJITTime(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ptxas, err := jit.FindPTXAS(os.Getenv("WARPLINK_PTXAS"), "")
	if err != nil {
		t.Skip("no ptxas:", err)
	}
	if rel, _ := jit.PTXASRelease(ptxas); rel != jit.Release {
		t.Skipf("ptxas %s is release %q, not %s", ptxas, rel, jit.Release)
	}
	nvlink, helper := buildJITTools(t)
	dir := filepath.Join(jitDir, "xcall")
	csv := filepath.Join(t.TempDir(), "t.csv")
	link := func(args ...string) {
		t.Helper()
		cmd := exec.Command(nvlink, append(args, "-time", csv, "-o", filepath.Join(t.TempDir(), "out.cubin"))...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "WARPLINK_NVVM_HELPER="+helper)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	check := func(want ...string) {
		t.Helper()
		b, err := os.ReadFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if !strings.HasPrefix(l, " , ") { // (warplink's passes)
				got = append(got, regexp.MustCompile(`, \d+\.\d{4} , ms$`).ReplaceAllString(l, ", T , ms"))
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("-time rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	const hdr = "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit"
	row := func(src, in, out, arch string) string {
		return src + " , ptxas , " + in + " , " + out + " , " + arch + " , nvlink , T , ms"
	}
	link("-arch=sm_86", "c.ptx.o", "a.ptx.o", "b.ptx.o")
	link("-arch=sm_86", "b.ptx", "a.ptx", "c.ptx")
	check(hdr, row("ptx", "c.ptx.o", "cubin", "sm_86"), row("ptx", "a.ptx.o", "cubin", "sm_86"), row("ptx", "b.ptx.o", "cubin", "sm_86"),
		row("b.ptx", "b.ptx", "", "sm_86"), row("a.ptx", "a.ptx", "", "sm_86"), row("c.ptx", "c.ptx", "", "sm_86"))
	lib, err := exec.Command(helper, "-check", "").Output()
	if err != nil {
		t.Skip("no libnvvm: the LTO rows not checked")
	}
	p := strings.TrimSpace(string(lib))
	if !filepath.IsAbs(p) {
		p = findLoaderLib(p)
	}
	nvvm := t.TempDir()
	os.MkdirAll(filepath.Join(nvvm, "lib64"), 0o755)
	if err := os.Symlink(p, filepath.Join(nvvm, "lib64", "libnvvm.so")); err != nil {
		t.Fatal(err)
	}
	os.Remove(csv)
	link("-arch=sm_80", "a.ptx.o", "b.lto80.o", "c.lto80.o", "-dlto", "-nvvmpath="+nvvm)
	check(hdr, row("ptx", "a.ptx.o", "cubin", "sm_80"), "lto.nvvm , cicc ,  , lto.ptx , sm_80 , nvlink , T , ms",
		"lto.ptx , ptxas ,  , lto.cubin , sm_80 , nvlink , T , ms")
}
