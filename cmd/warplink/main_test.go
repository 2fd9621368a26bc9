package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
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

// TestLTONoIR: -dlto over inputs without NVVM IR is an ordinary link
// after nvlink's warning, once libnvvm loads: nvlink loads it first, and
// without one its fatal error comes before any input is read. (The helper
// here is a script answering warplink-nvvm -check; links with IR:
// internal/e2e TestJITLTO.)
func TestLTONoIR(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake helper is a shell script")
	}
	helper := func(body string) string {
		p := filepath.Join(t.TempDir(), "warplink-nvvm")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	loads := helper("echo libnvvm.so.4")
	none := helper(`echo "warplink-nvvm: no usable libnvvm: tried /n/lib64/libnvvm.so (not found)" >&2; exit 1`)
	dir := "../../testdata/corpus/cuda11.8-sm_90/xcall/"
	out := filepath.Join(t.TempDir(), "x.cubin")
	t.Setenv("WARPLINK_NVVM_HELPER", loads)
	_, errs, code := runArgs("nvlink", "-arch=sm_90", "-o", out, dir+"a.cubin", dir+"b.cubin", dir+"c.cubin", "-dlto", "-nvvmpath", "/n")
	want := ""
	for _, f := range []string{"a", "b", "c"} {
		want += "nvlink info    : requested LTO but '" + dir + f + ".cubin' not built for LTO so doing partial LTO\n"
	}
	want += "nvlink warning : Ignoring -dlto option because no LTO objects found\n" // (as nvlink 11.8)
	if code != 0 || errs != want {
		t.Errorf("-dlto without IR: %q %d", errs, code)
	}
	_, errs, code = runArgs("nvlink", "-arch=sm_90", "-o", out, "missing.o", "-dlto", "-nvvmpath", "/n")
	if code != 1 || errs != "nvlink fatal   : Could not open input file 'missing.o'\n" {
		t.Errorf("-dlto, a missing input: %q %d", errs, code)
	}
	t.Setenv("WARPLINK_NVVM_HELPER", none)
	const noLib = "nvlink info    : no usable libnvvm: tried /n/lib64/libnvvm.so (not found)\nnvlink fatal   : elfLink linker library load error\n"
	for _, in := range []string{dir + "a.cubin", "missing.o"} {
		os.Remove(out)
		if _, errs, code = runArgs("nvlink", "-arch=sm_90", "-o", out, in, "-dlto", "-nvvmpath", "/n"); code != 1 || errs != noLib {
			t.Errorf("-dlto without libnvvm, %s: %q %d, want %q 1", in, errs, code, noLib)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("-dlto without libnvvm, %s: an output file", in)
		}
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
	// It says where each reference went, which kernels came out, and that
	// the output is nvlink's.
	for _, want := range []string{"resolve a.cubin  _Z7stage_bf -> b.cubin", "kernels _Z10xcall_mainPfi",
		"byte-identical to nvlink 11.8's output"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo's report lacks %q:\n%s", want, stdout)
		}
	}
	// The embedded files are the corpus' own.
	for _, n := range []string{"a.cubin", "b.cubin", "c.cubin", "ref.cubin"} {
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

// TestPtxasEndsLink: a ptxas given an informational option (-Xptxas
// --version) prints its text where the cubin would go and exits 0;
// nvlink's built-in ptxas then ends nvlink: its text on standard output,
// status 0, no output file, the inputs after unread (a missing one is
// not reported), --time's headings only (internal/e2e TestJITLTO, info
// group, compares with nvlink 11.8 and 12.5). The ptxas here is a script.
func TestPtxasEndsLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake ptxas is a shell script")
	}
	dir := t.TempDir()
	const text = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCuda compilation tools, release 11.8, V11.8.89\n"
	ptxas := filepath.Join(dir, "ptxas")
	if err := os.WriteFile(ptxas, []byte("#!/bin/sh\nprintf '"+strings.ReplaceAll(text, "\n", `\n`)+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARPLINK_PTXAS", ptxas)
	in := "../../testdata/jit/xcall/"
	out := filepath.Join(dir, "out.cubin")
	for _, c := range []struct {
		args       []string
		stdout     string
		stderr     string
		code       int
		outputMade bool
	}{
		{[]string{"-arch=sm_90", "-Xptxas", "--version", in + "a.ptx.o", "missing.o"}, text, "", 0, false},
		{[]string{"-arch=compute_90", "-Xptxas", "--version", in + "a.ptx.o"}, text, "", 0, false},
		{[]string{"-arch=sm_90", "--time=-", "-Xptxas", "--version", in + "a.ptx.o"},
			"source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n" + text, "", 0, false},
		{[]string{"-arch=sm_90", "-Xptxas", "--version", "missing.o", in + "a.ptx.o"}, "",
			"nvlink fatal   : Could not open input file 'missing.o'\n", 1, false},
	} {
		os.Remove(out)
		stdout, stderr, code := runArgs(append([]string{"nvlink", "-o", out}, c.args...)...)
		_, err := os.Stat(out)
		if stdout != c.stdout || stderr != c.stderr || code != c.code || (err == nil) != c.outputMade {
			t.Errorf("%v: %q %q %d, output %v; want %q %q %d, %v", c.args, stdout, stderr, code, err == nil, c.stdout, c.stderr, c.code, c.outputMade)
		}
	}
	// A ptxas that succeeds and writes nothing has printed no text: a
	// failed compile, not an exit.
	empty := "#!/bin/sh\n[ \"$1\" = --version ] && echo 'Cuda compilation tools, release 11.8, V11.8.89'\nexit 0\n"
	if err := os.WriteFile(ptxas, []byte(empty), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(out)
	stdout, stderr, code := runArgs("nvlink", "-o", out, "-arch=sm_90", in+"a.ptx.o")
	if _, err := os.Stat(out); code != 1 || stdout != "" || !strings.Contains(stderr, "nvlink fatal") || err == nil {
		t.Errorf("empty ptxas output: %q %q %d, output %v; want a fatal diagnostic, status 1, no output", stdout, stderr, code, err == nil)
	}
}
