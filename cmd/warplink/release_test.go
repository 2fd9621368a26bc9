package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseCommandLine: without --nvlink-version, what only some nvlink
// releases accept is refused in the words of the release the inputs
// choose; WARPLINK_NVLINK_VERSION names one as --nvlink-version does.
func TestReleaseCommandLine(t *testing.T) {
	corpus, _ := filepath.Abs("../../testdata/corpus")
	out := filepath.Join(t.TempDir(), "out.cubin")
	a118 := filepath.Join(corpus, "cuda11.8-sm_90", "constants", "a.cubin")
	a125 := filepath.Join(corpus, "cuda12.5-sm_90", "constants", "a.cubin")
	b125 := filepath.Join(corpus, "cuda12.5-sm_90", "constants", "b.cubin")
	if _, errs, code := runArgs("nvlink", "-arch=sm_90", "-Xnvvm", "-O3", a118, "-o", out); errs != "nvlink fatal   : Unknown option 'Xnvvm'\n" || code != 1 {
		t.Errorf("-Xnvvm, 11.8 inputs: %q %d", errs, code)
	}
	if _, errs, code := runArgs("nvlink", "-arch=sm_90", "-Xnvvm", "-O3", a125, b125, "-o", out); errs != "" || code != 0 {
		t.Errorf("-Xnvvm, 12.5 inputs: %q %d", errs, code)
	}
	t.Setenv("WARPLINK_NVLINK_VERSION", "11.8")
	if _, errs, code := runArgs("nvlink", "-arch=sm_90", a125, "-o", out); !strings.Contains(errs, "newer than toolkit (125 vs 118)") || code != 1 {
		t.Errorf("WARPLINK_NVLINK_VERSION=11.8, 12.5 inputs: %q %d", errs, code)
	}
	if stdout, _, _ := runArgs("nvlink", "-V"); !strings.Contains(stdout, "release 11.8, V11.8.89") {
		t.Errorf("-V under WARPLINK_NVLINK_VERSION=11.8: %q", stdout)
	}
	if stdout, _, _ := runArgs("nvlink", "--nvlink-version=12.5", "-V"); !strings.Contains(stdout, "release 12.5, V12.5.40") {
		t.Errorf("--nvlink-version=12.5 -V: %q", stdout)
	}
}
