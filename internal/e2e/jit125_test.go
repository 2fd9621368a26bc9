package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/testkit/toolkit"
)

// TestJITLTO125 replays nvlink 12.5's PTX JIT and LTO links of
// testdata/jit125 (record.sh there: CUDA 12.5's -dlto objects, -Xnvvm,
// -split-compile[-extended], host references, fast-math members) with
// CUDA 12.5's ptxas and libnvvm: the same exit status, messages and
// output bytes. ptxas is WARPLINK_PTXAS125 (by default the one of the
// /opt/cuda12 chroot, ../shared/tools/install-cuda12-toolkit.sh),
// libnvvm WARPLINK_LIBNVVM125 (likewise); skipped without either, or
// when they are not release 12.5's.
func TestJITLTO125(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	ptxas := envOr("WARPLINK_PTXAS125", "/opt/cuda12root/usr/bin/ptxas")
	if r := toolkit.NvlinkRelease(ptxas); r != "12.5" {
		t.Skipf("no ptxas 12.5 at %s (release %q)", ptxas, r)
	}
	lib := envOr("WARPLINK_LIBNVVM125", "/opt/cuda12root/usr/lib/x86_64-linux-gnu/libnvvm.so.4")
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("no libnvvm 12.5 at %s", lib)
	}
	nvlink, helper := buildJITTools(t)
	nvvm := nvvmPathFor(t, lib)
	// (warplink-nvvm falls back to other libraries: it must load this one.)
	if out, err := exec.Command(helper, "-check", nvvm).Output(); err != nil || strings.TrimSpace(string(out)) != filepath.Join(nvvm, "lib64", "libnvvm.so") {
		t.Skipf("libnvvm %s does not load (%v): %s", lib, err, out)
	}
	r := &jitReplay{dir: "../../testdata/jit125", libdir: libdir12, release: "12.5", nvlink: nvlink, helper: helper,
		nvvm: nvvm, ptxas: ptxas, known: jit125Known(), noOutput: func(c jitCase) string {
			if strings.HasSuffix(c.log, "nvlink fatal   : expected libcudadevrt object\n") {
				return "nvlink 12.5 refuses a whole program without libcudadevrt after writing its output"
			}
			return ""
		}}
	r.run(t)
}

// jit125Known are the recorded links where warplink deliberately differs
// from nvlink 12.5, with the reason.
func jit125Known() map[string]string {
	return map[string]string{}
}
