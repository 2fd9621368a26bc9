package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/atomicfile"
)

func runArgs(argv ...string) (string, string, int) {
	var out, errb bytes.Buffer
	code := run(argv, &out, &errb, atomicfile.NewRegistry(), false)
	return out.String(), errb.String(), code
}

func TestProgName(t *testing.T) {
	for in, want := range map[string]string{"nvlink": "nvlink", "/opt/x/bin/nvlink": "nvlink", "warplink": "warplink", "./warplink": "warplink", "nvlink2": "warplink", "nvlink.exe": "nvlink", "NVLINK.EXE": "nvlink"} {
		if got := progName(in); got != want {
			t.Errorf("progName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDiagnosticsName(t *testing.T) {
	_, errs, code := runArgs("/usr/local/bin/nvlink", "--bogus")
	if errs != "nvlink fatal   : Unknown option '-bogus'\n" || code != 1 {
		t.Errorf("as nvlink: %q %d", errs, code)
	}
	_, errs, code = runArgs("warplink", "-arch=sm_90", "-o", "x")
	if errs != "warplink fatal   : No input files specified; use option --help for more information\n" || code != 1 {
		t.Errorf("as warplink: %q %d", errs, code)
	}
}

func TestVersionHelp(t *testing.T) {
	out, _, code := runArgs("nvlink", "-V")
	if code != 0 || !strings.HasPrefix(out, "nvlink: warplink") || !strings.Contains(out, "release 11.8, V11.8.89") {
		t.Errorf("-V: %q %d", out, code)
	}
	out, _, code = runArgs("warplink", "--help")
	if code != 0 || !strings.Contains(out, "Usage  : warplink [options] <objects>") || !strings.Contains(out, "--output-file <file name>") {
		t.Errorf("--help: %d\n%s", code, out)
	}
}

func TestLTORefused(t *testing.T) {
	_, errs, code := runArgs("warplink", "-arch=sm_90", "-o", "x", "a.cubin", "-dlto", "-nvvmpath", "/n")
	if code != 1 || !strings.Contains(errs, "fatal   : link-time optimization") {
		t.Errorf("-dlto: %q %d", errs, code)
	}
}

func TestDemo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "demo.cubin")
	stdout, errs, code := runArgs("warplink", "demo", "-o", out)
	if code != 0 {
		t.Fatalf("demo: status %d\n%s%s", code, stdout, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Symbols) == 0 || !strings.Contains(stdout, "output  "+out) {
		t.Errorf("demo output: %d symbols\n%s", len(f.Symbols), stdout)
	}
	// The embedded files are the corpus' own.
	for _, n := range []string{"a.cubin", "b.cubin", "c.cubin"} {
		emb, _ := demoFiles.ReadFile("demo/" + n)
		ref, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "cuda11.8-sm_90", "xcall", n))
		if err != nil || !bytes.Equal(emb, ref) {
			t.Errorf("demo/%s differs from the corpus", n)
		}
	}
}

func TestHostLinkerScriptMode(t *testing.T) {
	out := filepath.Join(t.TempDir(), "aug.ld")
	if _, errs, code := runArgs("warplink", "-ghls", "lcs-aug", "-o", out); code != 0 {
		t.Fatalf("%q %d", errs, code)
	}
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "__nv_relfatbin") {
		t.Errorf("script: %q", data)
	}
	stdout, _, code := runArgs("warplink", "-ghls", "lcs-aug")
	if code != 0 || !strings.HasPrefix(stdout, "SECTIONS") {
		t.Errorf("stdout script: %q %d", stdout, code)
	}
}

// TestNoArguments checks a command line without arguments: warplink's
// usage, and under nvlink's name nvlink 11.8's message; status 1 both.
func TestNoArguments(t *testing.T) {
	out, errs, code := runArgs("warplink")
	if code != 1 || out != "" || !strings.HasPrefix(errs, "usage: warplink [nvlink options] <objects>") || !strings.Contains(errs, "warplink demo") {
		t.Errorf("warplink: %d %q %q", code, out, errs)
	}
	out, errs, code = runArgs("nvlink")
	if code != 1 || out != "" || errs != "nvlink fatal   : Unknown arch name '(null)'\n" {
		t.Errorf("nvlink: %d %q %q", code, out, errs)
	}
}
