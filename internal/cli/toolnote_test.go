package cli

import (
	"testing"

	"github.com/warplink/warplink/internal/diag"
)

// TestToolNoteOptions renders the options of the CUDA 13.0 corpus's
// links as nvlink 13.0's notes record them (the -L path as nvcc gave it).
func TestToolNoteOptions(t *testing.T) {
	const dir = "/usr/local/cuda-13.0/bin/../lib64"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-arch=sm_90", "a.cubin", "b.cubin", "-L" + dir, "-o", "ref.cubin"},
			"-arch sm_90 -L " + dir + " "},
		{[]string{"-arch=sm_90", "a.cubin", "b.cubin", "-L" + dir, "-lcudadevrt", "-o", "ref.cubin"},
			"-arch sm_90 -l cudadevrt -L " + dir + " "},
		{[]string{"-arch=sm_90", "-m64", "-cpu-arch=X86_64", "a.o", "b.o", "-L" + dir, "-lcudadevrt", "-o", "ref_dc.cubin"},
			"-arch sm_90 -m 64 -l cudadevrt -L " + dir + " -cpu-arch X86_64 "},
	} {
		cmd, err := Parse(c.args, nil, &diag.Bag{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cmd.Opts.ToolOptions; got != c.want {
			t.Errorf("%q: got %q, want %q", c.args, got, c.want)
		}
	}
}
