// Package toolkit tells tests which CUDA toolkit an installed tool
// belongs to, so that a test comparing with one nvlink release runs only
// against that release (an /opt/cuda12 wrapper may run another).
package toolkit

import (
	"os"
	"os/exec"
	"strings"
)

// NvlinkRelease runs `nvlink --version` at path and returns the release
// it reports ("12.5"); "" when path does not exist, does not run, or
// names no release.
func NvlinkRelease(path string) string {
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	out, _ := exec.Command(path, "--version").Output()
	return ReleaseOf(string(out))
}

// ReleaseOf extracts the release from a CUDA tool's --version text
// ("Cuda compilation tools, release 12.5, V12.5.40" gives "12.5").
func ReleaseOf(version string) string {
	_, rest, ok := strings.Cut(version, "release ")
	if !ok {
		return ""
	}
	v, _, ok := strings.Cut(rest, ",")
	if !ok {
		return ""
	}
	return v
}
