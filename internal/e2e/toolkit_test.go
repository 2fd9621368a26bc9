package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/warplink/warplink/internal/testkit/toolkit"
)

// useToolkit selects the toolkit the nvcc tests (make sweep, make
// fuzz-shared) compile and link with: $WARPLINK_CUDA, a toolkit's bin
// folder (/opt/cuda12/bin for CUDA 12.5), goes first on PATH, so that its
// nvcc, ptxas and nvlink run; unset, PATH's. It returns the folder of the
// libcudadevrt.a to link with: the toolkit's own (<bin>/../lib64, or
// lib64 beside a toolkit root's bin) when it has one, else the bundled
// CUDA 11.8 one (testdata/cudalib).
func useToolkit(t *testing.T) string {
	bin := os.Getenv("WARPLINK_CUDA")
	if bin == "" {
		return libdir
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", abs+string(os.PathListSeparator)+os.Getenv("PATH"))
	lib := filepath.Join(filepath.Dir(abs), "lib64")
	if _, err := os.Stat(filepath.Join(lib, "libcudadevrt.a")); err != nil {
		t.Logf("WARPLINK_CUDA: no %s/libcudadevrt.a; linking the bundled CUDA 11.8 one", lib)
		return libdir
	}
	return lib
}

// nvlinkRelease names the nvlink on PATH as its --version gives its
// release ("nvlink 12.5"), for the tests' summaries; "nvlink" when it
// says none.
func nvlinkRelease() string {
	out, _ := exec.Command("nvlink", "--version").Output()
	if v := toolkit.ReleaseOf(string(out)); v != "" {
		return "nvlink " + v
	}
	return "nvlink"
}
