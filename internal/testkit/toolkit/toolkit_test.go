package toolkit

import "testing"

func TestReleaseOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"nvlink: NVIDIA (R) Cuda linker\nCuda compilation tools, release 12.5, V12.5.40\n": "12.5",
		"Cuda compilation tools, release 11.8, V11.8.89":                                   "11.8",
		"nvlink (CUDA 12 wrapper): needs root (unshare, chroot)":                           "",
		"release 12.5": "",
		"":             "",
	} {
		if got := ReleaseOf(in); got != want {
			t.Errorf("ReleaseOf(%q) = %q, want %q", in, got, want)
		}
	}
	if got := NvlinkRelease("/nonexistent/nvlink"); got != "" {
		t.Errorf("missing nvlink: %q", got)
	}
}
