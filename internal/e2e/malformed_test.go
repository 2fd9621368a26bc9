package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

const (
	malformedDir = "../../testdata/malformed"
	// goodCubin links alone; every malformed input is linked beside it.
	goodCubin = "../../testdata/corpus/cuda11.8-sm_90/managed/b.cubin"
	// linkTimeout bounds one link: a hang is a failure.
	linkTimeout = 20 * time.Second
)

// malformedCase is one line of testdata/malformed/MANIFEST.
type malformedCase struct {
	name, want, class string
}

func readManifest(t *testing.T) []malformedCase {
	b, err := os.ReadFile(filepath.Join(malformedDir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []malformedCase
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 || (f[1] != "error" && f[1] != "tolerate") {
			t.Fatalf("bad MANIFEST line %q", sc.Text())
		}
		cases = append(cases, malformedCase{f[0], f[1], f[2]})
	}
	if len(cases) < 50 {
		t.Fatalf("MANIFEST lists %d inputs, want at least 50", len(cases))
	}
	return cases
}

// buildNvlink returns the built warplink under the name "nvlink", so
// that it prints its diagnostics as nvlink does.
func buildNvlink(t *testing.T) string {
	return filepath.Join(warplinkBin(t), "nvlink")
}

// linkResult is what one run of the linker did.
type linkResult struct {
	code   int
	stderr string
}

// runLink runs bin with args in dir and fails the test on a hang or a
// signal.
func runLink(t *testing.T, bin, dir string, args ...string) linkResult {
	ctx, cancel := context.WithTimeout(context.Background(), linkTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout = &bytes.Buffer{}
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("link did not finish within %v", linkTimeout)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %s: %v", bin, err)
	}
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		t.Fatalf("link killed by %v\n%s", cmd.ProcessState, stderr.String())
	}
	return linkResult{code, stderr.String()}
}

// checkCrashFree fails on a Go panic, a runtime fatal error or a goroutine
// dump.
func checkCrashFree(t *testing.T, r linkResult) {
	t.Helper()
	for _, bad := range []string{"panic:", "goroutine ", "fatal error:", "runtime error", "[signal "} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("link crashed (exit %d):\n%s", r.code, r.stderr)
		}
	}
	if r.code == 2 {
		t.Fatalf("exit status 2 (a Go panic's):\n%s", r.stderr)
	}
}

// checkDiagnostics checks the diagnostics of a failed link: one to three
// lines in nvlink's format, at least one naming the input (or being one of
// nvlink's own file-less messages).
func checkDiagnostics(t *testing.T, name string, r linkResult) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if r.stderr == "" || len(lines) > 3 {
		t.Fatalf("want 1 to 3 diagnostic lines, got %d:\n%s", len(lines), r.stderr)
	}
	// nvlink's own diagnostics that name no file; warplink prints them
	// verbatim for the same inputs.
	fileless := []string{"cubin not an elf?", "cubin not a device elf?", "fatbin wrong format?"}
	named := false
	for _, l := range lines {
		if !strings.HasPrefix(l, "nvlink error   : ") && !strings.HasPrefix(l, "nvlink fatal   : ") && !strings.HasPrefix(l, "nvlink warning : ") {
			t.Fatalf("diagnostic %q is not in nvlink's format", l)
		}
		msg := l[len("nvlink error   : "):] // all three prefixes are as long
		if strings.Contains(msg, name) {
			named = true
		}
		for _, f := range fileless {
			if msg == f {
				named = true
			}
		}
	}
	if !named {
		t.Fatalf("no diagnostic names %s:\n%s", name, r.stderr)
	}
}

// checkOutputDir checks that dir holds exactly want (name -> contents; a
// nil value accepts any contents).
func checkOutputDir(t *testing.T, dir string, want map[string][]byte) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		w, ok := want[e.Name()]
		if !ok {
			t.Fatalf("link left %s behind", e.Name())
		}
		if w != nil {
			got, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			if !bytes.Equal(got, w) {
				t.Fatalf("link changed the pre-existing %s", e.Name())
			}
		}
	}
	if len(ents) != len(want) {
		t.Fatalf("output directory holds %d files, want %d", len(ents), len(want))
	}
}

// TestMalformed links every input of testdata/malformed beside a good cubin
// with the real warplink binary, twice: into an empty directory, and over a
// pre-existing output file. A rejected input must fail with nvlink-style
// diagnostics naming it and leave the directory as it was; no input may
// crash or hang the linker.
func TestMalformed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the warplink binary")
	}
	bin := buildNvlink(t)
	good, err := filepath.Abs(goodCubin)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs(malformedDir)
	if err != nil {
		t.Fatal(err)
	}
	sentinel := []byte("pre-existing output\n")
	for _, c := range readManifest(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Into an empty directory.
			outDir := t.TempDir()
			out := filepath.Join(outDir, "out.cubin")
			r := runLink(t, bin, dir, "-arch=sm_90", c.name, good, "-o", out)
			checkCrashFree(t, r)
			if r.code == 0 {
				if c.want == "error" {
					t.Fatalf("link of %s (%s) succeeded", c.name, c.class)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatalf("link succeeded without output: %v", err)
				}
				if f, err := elf.Parse(b); err != nil || f.Header.Type != elf.ETExec {
					t.Fatalf("link succeeded with a bad output (%v)", err)
				}
				checkOutputDir(t, outDir, map[string][]byte{"out.cubin": nil})
				return
			}
			checkDiagnostics(t, c.name, r)
			checkOutputDir(t, outDir, nil)

			// Over a pre-existing output file.
			if err := os.WriteFile(out, sentinel, 0o644); err != nil {
				t.Fatal(err)
			}
			r2 := runLink(t, bin, dir, "-arch=sm_90", c.name, good, "-o", out)
			checkCrashFree(t, r2)
			if r2.code != r.code || r2.stderr != r.stderr {
				t.Fatalf("second link differs: exit %d, %q; first exit %d, %q", r2.code, r2.stderr, r.code, r.stderr)
			}
			checkOutputDir(t, outDir, map[string][]byte{"out.cubin": sentinel})
		})
	}
}

// TestMalformedNvlink runs the real nvlink on the malformed inputs when it
// is installed and checks that warplink rejects every input that nvlink
// rejects with a clean diagnostic. Set WARPLINK_NVLINK_LOG to a file name
// to record nvlink's outcome per input (docs/reliability.md is made from
// it). nvlink rejects an input in milliseconds; a run past 1 s is taken
// for a hang (one input, sym-shndx-out-of-range, keeps it busy 0.2-18 s
// before it links, and only a rejection is asserted on), or past 30 s
// when the log is recorded.
func TestMalformedNvlink(t *testing.T) {
	t.Parallel()
	nvlink, err := exec.LookPath("nvlink")
	if err != nil {
		t.Skip("nvlink not installed")
	}
	if testing.Short() {
		t.Skip("builds the warplink binary")
	}
	bin := buildNvlink(t)
	good, _ := filepath.Abs(goodCubin)
	dir, _ := filepath.Abs(malformedDir)
	cases := readManifest(t)
	lines := make([]string, len(cases)) // the log's, by case
	limit := time.Second
	if os.Getenv("WARPLINK_NVLINK_LOG") != "" {
		limit = 30 * time.Second
	}
	t.Run("inputs", func(t *testing.T) {
		for k, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				nv := nvlinkOutcome(nvlink, dir, c.name, good, filepath.Join(t.TempDir(), "out.cubin"), limit)
				wl := runLink(t, bin, dir, "-arch=sm_90", c.name, good, "-o", filepath.Join(t.TempDir(), "out.cubin"))
				first, _, _ := strings.Cut(strings.TrimSpace(wl.stderr), "\n")
				wlKind := "error"
				if wl.code == 0 {
					wlKind = "ok"
				}
				lines[k] = strings.Join([]string{c.name, c.want, nv.kind, nv.msg, wlKind, first}, "\t") + "\n"
				if nv.kind == "error" && wl.code == 0 && c.want == "error" {
					t.Errorf("nvlink rejects it (%s), warplink links it", nv.msg)
				}
			})
		}
	})
	if p := os.Getenv("WARPLINK_NVLINK_LOG"); p != "" {
		if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// nvOutcome classifies one nvlink run: "ok", "error" (a clean non-zero
// exit), "crash" (killed by a signal) or "hang".
type nvOutcome struct{ kind, msg string }

func nvlinkOutcome(nvlink, dir, name, good, out string, limit time.Duration) nvOutcome {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvlink, "-arch=sm_90", name, good, "-o", out)
	cmd.Dir = dir
	b, _ := cmd.CombinedOutput()
	msg := strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " | ")
	switch {
	case ctx.Err() != nil:
		return nvOutcome{"hang", ""}
	case cmd.ProcessState.ExitCode() < 0:
		return nvOutcome{"crash", cmd.ProcessState.String()}
	case cmd.ProcessState.ExitCode() == 0:
		return nvOutcome{"ok", msg}
	}
	return nvOutcome{"error", msg}
}

// TestMixedSectionKinds links an object whose NOBITS .nv.global, renamed
// .nv.global.init and given 2 TiB, would merge by name into the
// .nv.global.init that has contents: 2 TiB of zeros in the output.
// warplink names the section and writes nothing (nvlink 11.8 dies of
// SIGSEGV, leaving 4 KB of output). A fuzzed input did the same with
// nameless sections and a 23 GB .nv.shared, which the output-size guard
// (TestOutputSizeGuard) let through.
func TestMixedSectionKinds(t *testing.T) {
	t.Parallel()
	rc, stderr, out := linkPatchedGlobals(t, func(b []byte, f *elf.File, init, global int) {
		binary.LittleEndian.PutUint32(shdrAt(b, f, global), f.Sections[init].NameOff)
		binary.LittleEndian.PutUint64(shdrAt(b, f, global)[32:], 1<<41)
	})
	if rc != 1 {
		t.Fatalf("exit %d, want 1: %s", rc, stderr)
	}
	if want := "Section '.nv.global.init' in '"; !strings.Contains(stderr, want) || !strings.Contains(stderr, "b.cubin' has no file contents, but an earlier section of that name has") {
		t.Errorf("stderr %q lacks the mixed-kinds diagnostic", stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output file left behind: %v", err)
	}
}

// TestOutputSizeGuard links corpus globals under a bound on the output's
// size (Options.MaxOutputSize) that its sections pass: the link fails
// with a diagnostic naming the section, and writes nothing. (With the
// default bound, 1 TiB, no input known reaches the guard since merge
// refuses mixed section kinds: TestMixedSectionKinds.)
func TestOutputSizeGuard(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs(filepath.Join(corpusDir, "globals"))
	out := filepath.Join(t.TempDir(), "out.cubin")
	opts := &merge.Options{Flags: linkflags.Flags{Arch: "sm_90", Machine64: true, Inputs: []string{filepath.Join(dir, "a.cubin"), filepath.Join(dir, "b.cubin")}, Output: out}, Tuning: merge.Tuning{MaxOutputSize: 0x400}}
	var stderr bytes.Buffer
	if rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink"); rc != 1 {
		t.Fatalf("exit %d, want 1: %s", rc, stderr.String())
	}
	if want := "would take more than 0x400 bytes (section "; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output file left behind: %v", err)
	}
	opts.MaxOutputSize = 0
	if rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink"); rc != 0 {
		t.Fatalf("with the default bound: exit %d: %s", rc, stderr.String())
	}
}

// shdrAt is the bytes of section header i of f, parsed from b, onwards.
func shdrAt(b []byte, f *elf.File, i int) []byte {
	return b[int(f.Header.Shoff)+i*elf.ShdrSize:]
}

// linkPatchedGlobals links corpus globals with its b.cubin patched by
// patch (given the indices of .nv.global.init and .nv.global), and returns
// the exit status, the diagnostics and the output's path.
func linkPatchedGlobals(t *testing.T, patch func(b []byte, f *elf.File, init, global int)) (int, string, string) {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join(corpusDir, "globals"))
	b, f := readCubin(t, filepath.Join(dir, "b.cubin"))
	init, global := -1, -1
	for i := range f.Sections {
		switch f.SecName(i) {
		case ".nv.global.init":
			init = i
		case ".nv.global":
			global = i
		}
	}
	if init < 0 || global < 0 {
		t.Fatalf("globals/b.cubin: .nv.global.init %d, .nv.global %d", init, global)
	}
	patch(b, f, init, global)
	tmp := t.TempDir()
	in, out := filepath.Join(tmp, "b.cubin"), filepath.Join(tmp, "out.cubin")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &merge.Options{Flags: linkflags.Flags{Arch: "sm_90", Machine64: true, Inputs: []string{filepath.Join(dir, "a.cubin"), in}, Output: out}}
	var stderr bytes.Buffer
	rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink")
	return rc, stderr.String(), out
}

// TestForgedSharedAlignment links crafted shared-align-forged's a.cubin (a
// fuzzed input whose shared variable asks for 8 MiB alignment through its
// symbol value) with the value raised to 1 TiB and 2^63: nvlink 11.8 dies
// of SIGFPE on both; warplink refuses with the output-size guard's
// diagnostic, naming the shared section, and writes nothing. (At 8 MiB,
// and at 2 GiB, nvlink writes the file, and so does warplink, streaming
// the padding: the crafted case.)
func TestForgedSharedAlignment(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs("../../testdata/crafted/shared-align-forged")
	a, f := readCubin(t, filepath.Join(dir, "a.cubin"))
	sym := -1
	for i, s := range f.Symbols {
		if s.Value == 0x800000 {
			sym = i
		}
	}
	if sym < 0 {
		t.Fatal("no symbol of value 0x800000 in a.cubin")
	}
	var symtab elf.Shdr
	for i, s := range f.Sections {
		if s.Type == elf.SHTSymtab {
			symtab, _ = f.Shdr(i)
		}
	}
	for _, v := range []uint64{1 << 40, 1 << 63} {
		tmp := t.TempDir()
		b := bytes.Clone(a)
		binary.LittleEndian.PutUint64(b[symtab.Offset+uint64(sym)*elf.SymSize+8:], v)
		in := filepath.Join(tmp, "a.cubin")
		os.WriteFile(in, b, 0o644)
		out := filepath.Join(tmp, "out.cubin")
		opts := &merge.Options{Flags: linkflags.Flags{Arch: "sm_90", Machine64: true, Inputs: []string{in, filepath.Join(dir, "b.cubin")}, Output: out}}
		var stderr bytes.Buffer
		if rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink"); rc != 1 {
			t.Fatalf("value %#x: exit %d, want 1: %s", v, rc, stderr.String())
		}
		if want := "would take more than 0x10000000000 bytes (section .nv.shared."; !strings.Contains(stderr.String(), want) {
			t.Errorf("value %#x: stderr %q lacks %q", v, stderr.String(), want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("value %#x: output file left behind: %v", v, err)
		}
	}
}

// TestSamplerReferenceRefused links crafted bound-references with its
// texture reference tA turned into a sampler reference (symbol type 11),
// which nvcc does not write and warplink does not link: the reference is
// named in a diagnostic of its own (not as an undefined reference), the
// exit status is 255 and no output is written.
func TestSamplerReferenceRefused(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs("../../testdata/crafted/bound-references")
	b, f := readCubin(t, filepath.Join(dir, "a.cubin"))
	st, _ := f.Shdr(int(f.SymtabIndex))
	patched := false
	for i := range f.Symbols {
		if f.Symbols[i].Name == "tA" {
			info := &b[st.Offset+uint64(i)*elf.SymSize+4]
			*info = *info&0xF0 | 11
			patched = true
		}
	}
	if !patched {
		t.Fatal("no symbol tA in a.cubin")
	}
	tmp := t.TempDir()
	in, out := filepath.Join(tmp, "a.cubin"), filepath.Join(tmp, "out.cubin")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &merge.Options{Flags: linkflags.Flags{Arch: "sm_90", Machine64: true, Inputs: []string{in}, Output: out}}
	var stderr bytes.Buffer
	if rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink"); rc != 255 {
		t.Fatalf("exit %d, want 255: %s", rc, stderr.String())
	}
	if want := "Sampler reference 'tA' in '"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	for _, bad := range []string{"Undefined reference", "'tB'", "'sref'"} {
		if strings.Contains(stderr.String(), bad) {
			t.Errorf("stderr %q names %s", stderr.String(), bad)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output file left behind: %v", err)
	}
}

// readCubin reads and parses the cubin at path, failing the test if
// either fails.
func readCubin(t *testing.T, path string) ([]byte, *elf.File) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, f
}

// TestMalformedCorpusCurrent rebuilds testdata/malformed with its generator
// into a temporary directory and checks that it writes the same files, byte
// for byte: the generator still builds, and the corpus is what it makes.
func TestMalformedCorpusCurrent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out := t.TempDir()
	cmd := exec.Command(goTool, "run", "./testdata/malformed/gen", "-o", out)
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, b)
	}
	want, err := filepath.Glob(filepath.Join(malformedDir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := filepath.Glob(filepath.Join(out, "*"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, p := range got {
		names[filepath.Base(p)] = true
	}
	n := 0
	for _, p := range want {
		name := filepath.Base(p)
		if name == "gen" || name == "README.md" {
			continue
		}
		n++
		if !names[name] {
			t.Errorf("%s: in testdata/malformed, not made by the generator", name)
			continue
		}
		delete(names, name)
		a, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the generator makes other bytes (%d, committed %d)", name, len(b), len(a))
		}
	}
	for name := range names {
		t.Errorf("%s: made by the generator, not in testdata/malformed", name)
	}
	if n < 50 {
		t.Fatalf("testdata/malformed holds %d files, want at least 50", n)
	}
}
