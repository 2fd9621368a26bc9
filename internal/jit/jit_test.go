package jit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/nvvmproto"
)

func TestArgs(t *testing.T) {
	o := Options{Arch: 86, MaxRegCount: 32, Debug: true, Xptxas: []string{"-O1", "-v"}}
	got := o.Args([]string{"-O3", "--compile-only", "-maxrregcount=40"}, false)
	want := []string{"-arch=sm_86", "-O3", "-maxrregcount=40", "--maxrregcount=32", "-g", "-O1", "-v", "-c"}
	if !slices.Equal(got, want) {
		t.Errorf("Args = %q, want %q", got, want)
	}
	if got := (&Options{Arch: 80}).ltoArgs(true); !slices.Equal(got, []string{"-arch=sm_80"}) {
		t.Errorf("whole-program args = %q", got)
	}
}

// hostObj is a host object item with .nvHR sections (kinds "KE" ...).
func hostObj(name string, secs map[string]string, devrt bool) item {
	it := item{name: name, kind: itemIR, isHost: true, hasHost: true, devrt: devrt, host: map[string][]byte{}}
	for k, v := range secs {
		it.host[".nvHR"+k] = []byte(strings.ReplaceAll(v, " ", "\x00") + "\x00")
	}
	return it
}

func TestHostRefs(t *testing.T) {
	h := hostObj("h.o", map[string]string{"KE": "_Z2k1*", "KI": "s_*2k2*", "DE": "g1", "CE": "c1"}, false)
	g := hostObj("g.o", map[string]string{"DE": "gv"}, false)
	d := hostObj("lib.a:devrt.o", map[string]string{"KI": "dx_*memcpy* dx_*memset*"}, true)
	for _, c := range []struct {
		name              string
		items             []item
		kernels, variable []string
		want              string
	}{
		{"reverse order", []item{h, g, d}, nil, nil,
			"EK: 6:_Z2k1* \nIK: 11:dx_*memset* 11:dx_*memcpy* 7:s_*2k2* \nEC: 2:c1 \nEG: 2:gv 2:g1 \n"},
		{"variables only", []item{g}, nil, nil, ""},
		{"libcudadevrt's kernels only", []item{g, d}, nil, nil, ""},
		{"an object without the sections", []item{h, {name: "x.o", isHost: true}}, nil, nil, ""},
		{"--kernels-used replaces", []item{h, g}, []string{"k"}, nil, "EK: 3:*k* \nIK: 3:*k* \n"},
		{"--variables-used", []item{h}, nil, []string{"v"}, "EC: 3:*v* \nIC: 3:*v* \nEG: 3:*v* \nIG: 3:*v* \n"},
	} {
		got := ""
		if lists, ok := hostRefs(c.items, c.kernels, c.variable); ok {
			got = string(hostRefFile(lists))
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestNvvmOptions(t *testing.T) {
	ir := func(opts string) item { return item{kind: itemIR, opts: strings.Fields(opts)} }
	base := "-ftz=0 -prec_div=1 -prec_sqrt=1 -fmad=1"
	for _, c := range []struct {
		name          string
		l             LTO
		irs           []item
		partial, dev  bool
		want, message string
	}{
		{"whole", LTO{Options: Options{Arch: 90}}, []item{ir(base), ir(base)}, false, false,
			"-arch=compute_90 -ftz=0 -prec-div=1 -prec-sqrt=1 -fma=1 -link-lto -has-global-host-info", ""},
		{"partial, -g, devrt", LTO{Options: Options{Arch: 80, Debug: true}}, []item{ir(base)}, true, true,
			"-arch=compute_80 -ftz=0 -prec-div=1 -prec-sqrt=1 -fma=1 -link-lto --device-c -g --force-device-c", ""},
		{"ftz mismatch", LTO{Options: Options{Arch: 80}}, []item{ir(base), ir("-ftz=1")}, false, false,
			"", "nvlink fatal   : Cicc option values for '-ftz' do not match\n"},
		{"maxreg from some", LTO{Options: Options{Arch: 80}, IgnoreHostInfo: true}, []item{ir(base + " -maxreg 32 -generate-line-info"), ir(base)}, false, true,
			"-arch=compute_80 -ftz=0 -prec-div=1 -prec-sqrt=1 -fma=1 -link-lto -maxreg=32 -generate-line-info --device-c",
			"nvlink info    : Some objects do not have '-lineinfo' specified but others do; will build everything with '-lineinfo'\n" +
				"nvlink info    : Some objects do not have '-maxrregcount' specified but others do; will build everything with '-maxrregcount=32'\n"},
		{"lineinfo from all", LTO{Options: Options{Arch: 80}}, []item{ir(base + " -generate-line-info"), ir("-generate-line-info " + base)}, false, false,
			"-arch=compute_80 -ftz=0 -prec-div=1 -prec-sqrt=1 -fma=1 -link-lto -generate-line-info -has-global-host-info", ""},
		{"lineinfo before the option checks", LTO{Options: Options{Arch: 80}}, []item{ir(base), ir("-generate-line-info -ftz=1")}, false, false,
			"", "nvlink info    : Some objects do not have '-lineinfo' specified but others do; will build everything with '-lineinfo'\n" +
				"nvlink fatal   : Cicc option values for '-ftz' do not match\n"},
		{"maxreg mismatch", LTO{Options: Options{Arch: 80}}, []item{ir(base + " -maxreg 32"), ir(base + " -maxreg 40")}, false, false,
			"", "nvlink fatal   : Cicc option values for '-maxrregcount' do not match\n"},
		{"-maxrregcount overrides", LTO{Options: Options{Arch: 80, MaxRegCount: 64}}, []item{ir(base + " -maxreg 32"), ir(base + " -maxreg 40")}, false, false,
			"-arch=compute_80 -ftz=0 -prec-div=1 -prec-sqrt=1 -fma=1 -link-lto -maxreg=64 -has-global-host-info", ""},
	} {
		bag := &diag.Bag{}
		seq := 0
		opts, _, err := c.l.nvvmOptions(&rules118, c.irs, c.partial, c.dev, bag, func() diag.Key { seq++; return diag.At(diag.PhaseInputs, 0, seq) })
		var msg strings.Builder
		bag.Print(&msg, "nvlink")
		if got := strings.Join(opts, " "); got != c.want || msg.String() != c.message || (err != nil) != (c.want == "") {
			t.Errorf("%s: got %q, %q, %v; want %q, %q", c.name, got, msg.String(), err, c.want, c.message)
		}
	}
}

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindPTXAS(t *testing.T) {
	dir := t.TempDir()
	fake := script(t, dir, "ptxas", "echo 'Cuda compilation tools, release 12.5, V12.5.40'")
	if _, err := FindPTXAS(filepath.Join(dir, "none"), ""); err == nil {
		t.Error("a missing explicit ptxas was accepted")
	}
	if p, err := FindPTXAS(fake, ""); err != nil || p != fake {
		t.Errorf("explicit: %q, %v", p, err)
	}
	nvvm := filepath.Join(t.TempDir(), "nvvm")
	os.MkdirAll(filepath.Join(nvvm, "..", "bin"), 0o755)
	viaNVVM := script(t, filepath.Join(nvvm, "..", "bin"), "ptxas", "exit 0")
	t.Setenv("PATH", dir)
	if p, err := FindPTXAS("", nvvm); err != nil || p != viaNVVM {
		t.Errorf("<nvvmpath>/../bin before PATH: %q, %v", p, err)
	}
	if p, err := FindPTXAS("", ""); err != nil || p != fake {
		t.Errorf("PATH: %q, %v", p, err)
	}
	if rel, ok := ptxasRelease(fake); !ok || rel != "12.5" {
		t.Errorf("release %q %v", rel, ok)
	}
	if w := New(Options{Arch: 90, PTXAS: fake}).Warning(); w != "" {
		t.Errorf("ptxas 12.5, no release named: warning %q", w)
	}
	c := New(Options{Arch: 90, PTXAS: fake, Release: 118})
	if w := c.Warning(); !strings.Contains(w, "release 12.5") || !strings.Contains(w, "nvlink 11.8's") {
		t.Errorf("no release warning: %q", w)
	}
	if w := c.Warning(); w != "" {
		t.Errorf("the warning came twice: %q", w)
	}
}

// TestRulesFor: the release named, else the ptxas's; a release without
// rules of its own takes the nearest of its major version, else the
// newest older one.
func TestRulesFor(t *testing.T) {
	for _, c := range []struct {
		named      int
		rel, rules string
		warns      bool
	}{
		{0, "11.8", "11.8", false}, {0, "12.5", "12.5", false}, {125, "12.5", "12.5", false},
		{118, "12.5", "11.8", true}, {125, "11.8", "12.5", true}, {0, "12.4", "12.5", true},
		{0, "13.0", "12.5", true}, {0, "", "11.8", true}, {124, "12.4", "12.5", false},
	} {
		r, w := rulesFor(c.named, c.rel, "ptxas")
		if r.Name != c.rules || (w != "") != c.warns {
			t.Errorf("rulesFor(%d, %q) = %s, %q", c.named, c.rel, r.Name, w)
		}
	}
}

// TestPTXASFailures: ptxas failing or crashing is a failure with its
// messages, never a cubin; a ptxas that cannot run is a tool error.
func TestPTXASFailures(t *testing.T) {
	dir := t.TempDir()
	bad := script(t, dir, "bad", `echo "ptxas $1, line 1; error   : x" >&2; exit 255`)
	crash := script(t, dir, "crash", `kill -SEGV $$`)
	ok := script(t, dir, "ok", `cat /dev/fd/3`)
	if out, log, err := runPTXAS(nil, bad, nil, []byte("ptx")); err == nil || out != nil || !strings.Contains(log, "ptxas application ptx input, line 1") {
		t.Errorf("failing ptxas: %q %q %v", out, log, err)
	}
	if out, _, err := runPTXAS(nil, crash, nil, []byte("ptx")); err == nil || out != nil {
		t.Errorf("crashing ptxas: %q %v", out, err)
	}
	if out, _, err := runPTXAS(nil, ok, nil, []byte("the ptx")); err != nil || string(out) != "the ptx" {
		t.Errorf("ptxas reading its input: %q %v", out, err)
	}
	if _, _, err := runPTXAS(nil, filepath.Join(dir, "none"), nil, nil); err == nil {
		t.Error("a missing ptxas ran")
	}
}

// TestHelperCrash: a libnvvm helper that dies names the IR inputs.
func TestHelperCrash(t *testing.T) {
	crash := script(t, t.TempDir(), "warplink-nvvm", `cat >/dev/null; kill -SEGV $$`)
	_, err := runHelper(crash, &nvvmproto.Request{Modules: []nvvmproto.Module{{Name: "a.o"}, {Name: "lib.a:b.o"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "'a.o', 'lib.a:b.o'") {
		t.Errorf("helper crash: %v", err)
	}
}

func TestChildEnv(t *testing.T) {
	got := childEnv([]string{"PATH=/bin", "HOME=/h"})
	if want := []string{"PATH=/bin", "HOME=/h", "GLIBC_TUNABLES=" + mallocTunables}; !slices.Equal(got, want) {
		t.Errorf("childEnv added %q, want %q", got, want)
	}
	for _, own := range []string{"GLIBC_TUNABLES=glibc.malloc.arena_max=1", "GLIBC_TUNABLES="} {
		env := []string{"PATH=/bin", own}
		if got := childEnv(env); !slices.Equal(got, env) {
			t.Errorf("childEnv(%q) = %q: the caller's own setting must stay as it is", env, got)
		}
	}
}

func TestLTONoLibrary(t *testing.T) {
	// nvlink loads libnvvm before it reads an input: without one, its
	// fatal alone (warplink's info line first), no "Could not open".
	dir := t.TempDir()
	helper := script(t, dir, "warplink-nvvm", `echo "warplink-nvvm: no usable libnvvm: tried /x/lib64/libnvvm.so (not found)" >&2; exit 1`)
	l := &LTO{Options: Options{Arch: 80, NVVMPath: "/x", Inputs: []string{filepath.Join(dir, "missing.o")}}, Helper: helper}
	bag := &diag.Bag{}
	if _, err := l.Run(bag); !IsFatal(err) {
		t.Fatalf("Run: %v, want the fatal", err)
	}
	var msg strings.Builder
	bag.Print(&msg, "nvlink")
	want := "nvlink info    : no usable libnvvm: tried /x/lib64/libnvvm.so (not found)\nnvlink fatal   : elfLink linker library load error\n"
	if msg.String() != want {
		t.Errorf("messages:\n%s\nwant:\n%s", msg.String(), want)
	}
	if err := checkLibrary(script(t, dir, "ok-nvvm", "echo libnvvm.so.4"), "/x"); err != nil {
		t.Errorf("a helper that loads a libnvvm: %v", err)
	}
}

func TestPhases(t *testing.T) {
	dir := t.TempDir()
	var in []string
	for _, n := range []string{"z.ptx", "a.ptx", "m.ptx"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(".version 7.8\n.target sm_80\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in = append(in, p)
	}
	c := New(Options{Arch: 86, Inputs: in})
	// (Ended out of order; the member row is no input: last.)
	c.ran = []ptxRun{{in[2], true, 3 * time.Millisecond, true}, {"lib.a:k.o", false, 1500 * time.Microsecond, true}, {in[0], true, time.Millisecond, true}, {in[1], true, 2 * time.Millisecond, true}}
	var got []string
	for _, p := range c.Phases() {
		got = append(got, p.Row("sm_86", "nvlink"))
	}
	want := []string{
		in[0] + " , ptxas , " + in[0] + " ,  , sm_86 , nvlink , 1.0000 , ms",
		in[1] + " , ptxas , " + in[1] + " ,  , sm_86 , nvlink , 2.0000 , ms",
		in[2] + " , ptxas , " + in[2] + " ,  , sm_86 , nvlink , 3.0000 , ms",
		"ptx , ptxas , lib.a:k.o , cubin , sm_86 , nvlink , 1.5000 , ms",
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// nvlink stops at the first failing compile: no row from it on.
	c.ran[3].ok = false
	if ps := c.Phases(); len(ps) != 1 || ps[0].Input != in[0] {
		t.Errorf("after a failure at %s: %v, want the row of %s only", in[1], ps, in[0])
	}
}

// TestAhead: every distinct (arguments, PTX) is compiled once, whether the
// read pass or the compiles ahead get to it first; each input gets its
// own result, the same as a compile of its own would give.
func TestAhead(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	ptxas := script(t, dir, "ptxas", `[ "$1" = --version ] && { echo "Cuda compilation tools, release 11.8, V11.8.89"; exit 0; }
echo x >>`+log+`
for a; do [ "$a" = /dev/fd/3 ] && break; printf '%s|' "$a"; done
while IFS= read -r l; do printf '%s\n' "$l"; done </dev/fd/3`) // (shell builtins only)
	texts := []string{"a", "b", "a", "c"} // (the third input's PTX is the first's)
	var in []string
	for i, s := range texts {
		p := filepath.Join(dir, fmt.Sprintf("%d.ptx", i))
		if err := os.WriteFile(p, []byte(".version 7.8\n.target sm_80\n// "+s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in = append(in, p)
	}
	// (No zygote: the fake ptxas logs a compile when it starts, which a
	// zygote does once.)
	c := New(Options{Arch: 86, Inputs: in, PTXAS: ptxas, NoZygote: true})
	got := make([][]byte, len(in))
	var wg sync.WaitGroup
	for _, i := range []int{3, 1, 0, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, _ := os.ReadFile(in[i])
			cubin, _, err := c.PTX(in[i], true, b, nil)
			if err != nil {
				t.Errorf("%s: %v", in[i], err)
			}
			got[i] = cubin
		}()
	}
	wg.Wait()
	for i, s := range texts {
		if want := "-arch=sm_86|-c|.version 7.8\n.target sm_80\n// " + s + "\n"; string(got[i]) != want {
			t.Errorf("input %d: %q, want %q", i, got[i], want)
		}
	}
	if len(got[0]) == 0 || len(got[2]) == 0 {
		t.FailNow()
	}
	got[0][0] = 'X'
	if got[2][0] == 'X' {
		t.Error("two inputs of the same PTX share one cubin")
	}
	if b, _ := os.ReadFile(log); strings.Count(string(b), "x") != 3 {
		t.Errorf("%d compiles, want 3 (one per distinct PTX)", strings.Count(string(b), "x"))
	}
}

// TestNvvmOptions125: nvlink 12.5's option list (checked with a libnvvm
// that logs its calls): no member options but after -Xnvvm's words, which
// drop nvlink's own flags and the member options they set;
// -split-compile[-extended] after -link-lto.
func TestNvvmOptions125(t *testing.T) {
	ir := item{kind: itemIR, opts: strings.Fields("-ftz=1 -prec_div=0 -prec_sqrt=0 -fmad=1")}
	for _, c := range []struct {
		name          string
		l             LTO
		partial, dev  bool
		want, message string
	}{
		{"plain", LTO{Options: Options{Arch: 80}}, false, true,
			"-arch=compute_80 -link-lto --device-c -has-global-host-info", ""},
		{"-Xnvvm", LTO{Options: Options{Arch: 80, Debug: true, Xnvvm: []string{"-opt=0", "-g -ftz=0", "-g", "-foo"}}}, false, true,
			"-arch=compute_80 -link-lto --device-c -g -has-global-host-info -opt=0 -ftz=0 -foo -prec-div=0 -prec-sqrt=0 -fma=1", ""},
		{"-Xnvvm only own flags", LTO{Options: Options{Arch: 80, Debug: true, MaxRegCount: 32, Xnvvm: []string{"-g", "-maxreg=32"}}}, false, true,
			"-arch=compute_80 -link-lto -maxreg=32 --device-c -g -has-global-host-info -maxreg=32 -ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1", ""},
		{"split", LTO{Options: Options{Arch: 90, SplitCompile: "4"}}, true, false,
			"-arch=compute_90 -link-lto -split-compile=4 --device-c --force-device-c", ""},
		{"split both", LTO{Options: Options{Arch: 90, SplitCompile: "4", SplitCompileExtended: "0"}}, false, false,
			"-arch=compute_90 -link-lto -split-compile-extended=0 -has-global-host-info",
			"nvlink info    : Incompatible options '-split-compile' and '-split-compile-extended', using '-split-compile-extended'\n"},
	} {
		bag := &diag.Bag{}
		seq := 0
		opts, _, err := c.l.nvvmOptions(&rules125, []item{ir, ir}, c.partial, c.dev, bag, func() diag.Key { seq++; return diag.At(diag.PhaseInputs, 0, seq) })
		var msg strings.Builder
		bag.Print(&msg, "nvlink")
		if got := strings.Join(opts, " "); got != c.want || msg.String() != c.message || err != nil {
			t.Errorf("%s: got %q, %q, %v; want %q, %q", c.name, got, msg.String(), err, c.want, c.message)
		}
	}
	h := hostObj("h.o", map[string]string{"KE": "_Z2k1*", "KI": "a* b*", "DE": "g1"}, false)
	lists, ok := hostRefs([]item{h}, nil, nil)
	if got := strings.Join(hostRefOptions(lists), " "); !ok || got != "-host-ref-ek=_Z2k1* -host-ref-ik=b*,a* -host-ref-eg=g1" {
		t.Errorf("host reference options %q", got)
	}
}

// TestSplitPTX: libnvvm's result under -split-compile-extended holds its
// modules one after another, each from its header.
func TestSplitPTX(t *testing.T) {
	mod := func(f string) string {
		return "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 8.5\n.target sm_80\n.address_size 64\n.func " + f + "()\n{\nret;\n}\n"
	}
	for _, c := range []struct {
		in   string
		want []string
	}{
		{mod("a"), []string{mod("a")}},
		{mod("a") + mod("b") + mod("c"), []string{mod("a"), mod("b"), mod("c")}},
		{".version 7.8\n", []string{".version 7.8\n"}},
	} {
		var got []string
		for _, m := range splitPTX([]byte(c.in)) {
			got = append(got, string(m))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("splitPTX(%q) = %q", c.in, got)
		}
	}
}
