package cli

import (
	"bytes"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/testkit/toolkit"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// errorCases125 are command lines nvlink 12.5 refuses (checked against
// /opt/cuda12/bin/nvlink by TestAgainstNvlink125 where it is installed),
// and the release whose command line accepts them.
var errorCases125 = []struct {
	args     []string
	want     string
	accepted string // "" none
}{
	{[]string{"-arch=sm_35", "-o", "x", "a.cubin"}, "nvlink fatal   : Value 'sm_35' is not defined for option 'arch'\n", "11.8"},
	{[]string{"-arch=compute_37", "-o", "x", "a.cubin"}, "nvlink fatal   : Value 'compute_37' is not defined for option 'arch'\n", "11.8"},
	{[]string{"-arch=sm_80", "-m32", "-o", "x", "a.cubin"}, "nvlink fatal   : Value '32' is not defined for option 'machine'\n", "11.8"},
	{[]string{"-arch=sm_90", "-uidx", "-o", "x", "a.cubin", "-split-compile"}, "nvlink fatal   : argument expected after '-split-compile'\n", ""},
	{[]string{"-arch=sm_90", "-split-compile", "x", "-o", "x", "a.cubin"}, "nvlink fatal   : 'x': expected a number\n", ""},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-cuda-api-version", "11.8"}, "nvlink fatal   : --cuda-api-version major number must be == toolkit version\n", "11.8"},
}

// TestErrors125 parses errorCases125 as nvlink 12.5, then with no release
// named: then the release the inputs choose refuses them (CheckRelease),
// in its own words, but the release that accepts them.
func TestErrors125(t *testing.T) {
	for _, tt := range errorCases125 {
		_, got, code := parseFor("12.5", tt.args, os.ReadFile)
		if got != tt.want || code != 1 {
			t.Errorf("%q:\n got %q (status %d)\nwant %q (status 1)", tt.args, got, code, tt.want)
		}
		if tt.accepted == "" {
			continue
		}
		c, msg, code := parseFor("", tt.args, os.ReadFile)
		if code != -1 {
			t.Errorf("%q, no release named: refused at once: %s", tt.args, msg)
			continue
		}
		if m := c.CheckRelease(125); "nvlink fatal   : "+m+"\n" != tt.want {
			t.Errorf("%q, inputs of 12.5: %q, want %q", tt.args, m, tt.want)
		}
		if m := c.CheckRelease(118); m != "" {
			t.Errorf("%q, inputs of 11.8: refused: %q", tt.args, m)
		}
	}
}

// TestOptions125 checks what nvlink 12.x accepts and 11.8 does not.
func TestOptions125(t *testing.T) {
	uidx := t.TempDir() + "/u.idx"
	os.WriteFile(uidx, nil, 0o644)
	args := append([]string{"-Xnvvm", "-O3,-v", "-split-compile", "4", "-split-compile-extended=2", "-uidx", uidx,
		"-arch=sm_90a"}, base[1:]...)
	c, msg, code := parseFor("12.5", args, os.ReadFile)
	if code != -1 {
		t.Fatal(msg)
	}
	if len(c.Xnvvm) != 2 || c.SplitCompile != 4 || c.SplitCompileExtended != 2 || c.UidxFile != uidx || c.Opts.Arch != "sm_90a" {
		t.Errorf("parsed %+v", c)
	}
	// -emit-ptx takes no value (in 11.8 too).
	if c, err := ParseRelease([]string{"-emit-ptx", "a.cubin"}, os.ReadFile, &diag.Bag{}, "12.5"); err != nil || !c.EmitPTX || len(c.Opts.Inputs) != 1 {
		t.Errorf("-emit-ptx a.cubin: %v", err)
	}
	// The uidx file must open, as nvlink 12.5 opens it.
	if _, msg, _ := parseFor("12.5", append([]string{"-uidx", uidx + ".none"}, base...), os.ReadFile); msg != "nvlink fatal   : Could not open input file '"+uidx+".none'\n" {
		t.Errorf("missing uidx file: %q", msg)
	}
	if _, msg, _ := parseFor("11.8", args, os.ReadFile); msg != "nvlink fatal   : Unknown option 'Xnvvm'\n" {
		t.Errorf("11.8: %q", msg)
	}
	c, msg, code = parseFor("", args, os.ReadFile)
	if code != -1 {
		t.Fatal(msg)
	}
	if m := c.CheckRelease(118); m != "Unknown option 'Xnvvm'" {
		t.Errorf("no release named, inputs of 11.8: %q", m)
	}
	if m := c.CheckRelease(125); m != "" {
		t.Errorf("no release named, inputs of 12.5: %q", m)
	}
	// The environment names a release as --nvlink-version does; the
	// command line wins.
	if c, _, _ := parseFor("12.5", append([]string{"--nvlink-version=11.8"}, base...), os.ReadFile); c.Release != 118 || c.Opts.NvlinkVersion != "11.8" {
		t.Errorf("--nvlink-version=11.8 under 12.5: release %d, %q", c.Release, c.Opts.NvlinkVersion)
	}
}

// TestAgainstNvlink125 runs errorCases125 with nvlink 12.5.
func TestAgainstNvlink125(t *testing.T) {
	const nvlink125 = "/opt/cuda12/bin/nvlink"
	if r := toolkit.NvlinkRelease(nvlink125); r != "12.5" {
		t.Skipf("no nvlink 12.5 at %s (release %q)", nvlink125, r)
	}
	dir := corpusDir(t)
	for _, tt := range errorCases125 {
		cmd := exec.Command(nvlink125, tt.args...)
		cmd.Dir = dir
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if errb.String() != tt.want || code != 1 {
			t.Errorf("nvlink 12.5 %q:\n got %q (status %d)\nwant %q (status 1)", tt.args, errb.String(), code, tt.want)
		}
	}
}

// TestHelpCoversNvlink125 checks that every option of nvlink 12.5's --help
// is in warplink's help for 12.5.
func TestHelpCoversNvlink125(t *testing.T) {
	const nvlink125 = "/opt/cuda12/bin/nvlink"
	if r := toolkit.NvlinkRelease(nvlink125); r != "12.5" {
		t.Skipf("no nvlink 12.5 at %s (release %q)", nvlink125, r)
	}
	out, _ := exec.Command(nvlink125, "--help").Output()
	var ours bytes.Buffer
	PrintHelpFor(&ours, "warplink", 125)
	n := 0
	for _, line := range strings.Split(string(out), "\n") {
		long, ok := strings.CutPrefix(line, "--")
		if !ok {
			continue
		}
		long, _, _ = strings.Cut(long, " ")
		n++
		if !strings.Contains(ours.String(), "\n--"+long) {
			t.Errorf("--%s missing from help", long)
		}
	}
	if n < 30 {
		t.Fatalf("parsed only %d options from nvlink 12.5's --help", n)
	}
}
