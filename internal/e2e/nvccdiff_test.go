package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/warplink/warplink/internal/cmpelf"
)

// nvccCubins compiles each of srcs with the real nvcc for arch (relocatable,
// with flags) into dir, one cubin per source, and returns the cubins, or
// why nvcc failed (TestNvccSweep, TestNvccSharedFuzz).
func nvccCubins(dir, arch string, srcs []string, flags ...string) ([]string, string) {
	var cubins []string
	for _, src := range srcs {
		out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(src), ".cu")+".cubin")
		args := append([]string{"-arch=" + arch, "-rdc=true", "-cubin", "-o", out, src}, flags...)
		if msg, err := exec.Command("nvcc", args...).CombinedOutput(); err != nil {
			return nil, fmt.Sprintf("nvcc %s: %v: %s", filepath.Base(src), err, firstLine(string(msg)))
		}
		cubins = append(cubins, out)
	}
	return cubins, ""
}

// diffNvlink links args (an nvlink command line without -o) with the
// installed nvlink into ref and with warplink into ours, and returns
// nvlink's exit status and output and what differs: "" when both exit
// alike, with the same diagnostics, and write byte-identical files when
// they succeed. err reports nvlink not running at all.
func diffNvlink(args []string, ref, ours string) (nvRC int, nvLog, problem string, err error) {
	nv := exec.Command("nvlink", append(args, "-o", ref)...)
	var nvOut bytes.Buffer
	nv.Stdout, nv.Stderr = &nvOut, &nvOut
	if err := nv.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			return 0, "", "", fmt.Errorf("nvlink: %v", err)
		}
		nvRC = ee.ExitCode()
	}
	nvLog = nvOut.String()
	var wlLog bytes.Buffer
	wlRC := linkCLI("", append(args, "-o", ours), &wlLog)
	switch {
	case wlRC != nvRC:
		problem = fmt.Sprintf("exit status %d, nvlink %d: %q, nvlink %q", wlRC, nvRC, firstLine(wlLog.String()), firstLine(nvLog))
	case errorLines(wlLog.String()) != errorLines(nvLog):
		problem = fmt.Sprintf("diagnostics %q, nvlink %q", wlLog.String(), nvLog)
	case nvRC == 0:
		a, _ := os.ReadFile(ref)
		b, err := os.ReadFile(ours)
		if err != nil {
			problem = "no output written"
		} else if !bytes.Equal(a, b) {
			problem = "output differs"
			if rep, err := cmpelf.Compare(b, a); err == nil {
				problem += ": " + strings.Join(firstN(rep.Diffs, 3), "; ")
			}
		}
	}
	return nvRC, nvLog, problem, nil
}
