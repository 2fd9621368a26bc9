// Package e2e links the bundled corpus with warplink and compares each
// output with the output nvlink produced for the same inputs.
package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/cmpelf"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

// corpusDir is the bundled sm_90 corpus the other e2e tests use;
// WARPLINK_CORPUS names another one built by testdata/corpus/src/build.sh
// (another architecture or toolkit).
var corpusDir = envOr("WARPLINK_CORPUS", corpusSM90)

// The bundled corpora (testdata/corpus/src/build.sh sm_90 and sm_80), of
// CUDA 11.8, 12.4 and 12.5, each with its nvlink's outputs.
const (
	corpusSM90    = "../../testdata/corpus/cuda11.8-sm_90"
	corpusSM80    = "../../testdata/corpus/cuda11.8-sm_80"
	corpus124SM90 = "../../testdata/corpus/cuda12.4-sm_90"
	corpus124SM80 = "../../testdata/corpus/cuda12.4-sm_80"
	corpus125SM90 = "../../testdata/corpus/cuda12.5-sm_90"
	corpus125SM80 = "../../testdata/corpus/cuda12.5-sm_80"
)

// corpusDirs are the corpora TestCorpus* link: the bundled ones (sm_90 and
// sm_80: RELA and REL inputs; CUDA 11.8, 12.4 and 12.5, which warplink
// links as nvlink 11.8, 12.4 and 12.5, chosen by the inputs), or the one
// WARPLINK_CORPUS names.
func corpusDirs() []string {
	if v := os.Getenv("WARPLINK_CORPUS"); v != "" {
		return []string{v}
	}
	return []string{corpusSM90, corpusSM80, corpus124SM90, corpus124SM80, corpus125SM90, corpus125SM80}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// libdir holds the bundled libcudadevrt.a.
var libdir, _ = filepath.Abs("../../testdata/cudalib")

// libdir12 holds CUDA 12.5's libcudadevrt.a, which the 12.5 corpus links;
// libdir124 CUDA 12.4's, for the 12.4 corpus.
var (
	libdir12, _  = filepath.Abs("../../testdata/cudalib12")
	libdir124, _ = filepath.Abs("../../testdata/cudalib124")
)

// libdirFor is the libcudadevrt.a directory for the corpus program in dir:
// that of the toolkit its TOOLKIT file names (CUDA 11.8's by default).
func libdirFor(dir string) string {
	tk, _ := os.ReadFile(filepath.Join(dir, "..", "TOOLKIT"))
	switch {
	case strings.Contains(string(tk), "cuda_12.4"):
		return libdir124
	case strings.Contains(string(tk), "cuda_12.5"):
		return libdir12
	case strings.Contains(string(tk), "cuda_13.0"):
		return libdir13
	}
	return libdir
}

// linkArgs reads an args file of folder dir and returns Options for it,
// with relative paths taken against dir (inDir) and @CUDA_LIBDIR@ pointing
// at the bundled libcudadevrt.
func linkArgs(t *testing.T, dir, file, out string) *merge.Options {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	o := &merge.Options{Flags: linkflags.Flags{Output: out}, Tuning: merge.Tuning{CheckNames: true}}
	args := strings.Fields(string(b))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "-arch="):
			o.Arch = strings.TrimPrefix(a, "-arch=")
		case a == "-m64":
			o.Machine64 = true
		case strings.HasPrefix(a, "-cpu-arch="):
		case strings.HasPrefix(a, "-L"):
			o.LibDirs = append(o.LibDirs, strings.ReplaceAll(strings.TrimPrefix(a, "-L"), "@CUDA_LIBDIR@", libdirFor(dir)))
		case strings.HasPrefix(a, "-l"):
			o.Inputs = append(o.Inputs, a)
		case a == "-o":
			i++
		default:
			o.Inputs = append(o.Inputs, a)
		}
	}
	inDirOptions(dir, &o.Flags)
	return o
}

// TestCorpusCubins links every program from its cubins (link.args) and
// compares with nvlink's ref.cubin.
func TestCorpusCubins(t *testing.T) {
	t.Parallel()
	testCorpus(t, "link.args", "ref")
}

// TestCorpusHostObjects links every program from its nvcc -dc host objects
// and archives (link_dc.args) and compares with nvlink's ref_dc.cubin.
func TestCorpusHostObjects(t *testing.T) {
	t.Parallel()
	testCorpus(t, "link_dc.args", "ref_dc")
}

func testCorpus(t *testing.T, argsFile, ref string) {
	for _, d := range corpusDirs() {
		t.Run(filepath.Base(d), func(t *testing.T) { testCorpusDir(t, d, argsFile, ref) })
	}
}

// corpusPrograms is the programs of a corpus, by name, with their absolute
// folders; a corpus without any fails the test.
func corpusPrograms(t *testing.T, corpusDir string) (names, dirs []string) {
	ents, _ := os.ReadDir(corpusDir)
	for _, e := range ents {
		if e.IsDir() {
			dir, _ := filepath.Abs(filepath.Join(corpusDir, e.Name()))
			names, dirs = append(names, e.Name()), append(dirs, dir)
		}
	}
	if len(names) == 0 {
		t.Fatalf("no corpus in %s", corpusDir)
	}
	return names, dirs
}

func testCorpusDir(t *testing.T, corpusDir, argsFile, ref string) {
	names, dirs := corpusPrograms(t, corpusDir)
	results := make([]corpusResult, len(names))
	t.Run("links", func(t *testing.T) {
		for k, name := range names {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				results[k] = corpusLink(t, dirs[k], name, argsFile, ref)
			})
		}
	})
	identical, equivalent, total := 0, 0, 0
	for _, r := range results {
		total, identical, equivalent = total+b2i(r.linked), identical+b2i(r.identical), equivalent+b2i(r.equivalent)
	}
	t.Logf("%s links: %d of %d byte-identical to nvlink, %d equivalent", argsFile, identical, total, equivalent)
}

// corpusResult is one corpus link's outcome: made (nvlink makes it too),
// byte-identical to nvlink's, equivalent to it.
type corpusResult struct{ linked, identical, equivalent bool }

// corpusLink links the corpus program in dir from argsFile and compares
// the outcome with nvlink's recorded one (ref.rc, ref.log, ref.cubin). A
// link that nvlink fails must fail alike; one it makes must be equivalent
// to nvlink's output, and byte-identical in the bundled corpora.
func corpusLink(t *testing.T, dir, name, argsFile, ref string) (r corpusResult) {
	rc, _ := os.ReadFile(filepath.Join(dir, ref+".rc"))
	out := filepath.Join(t.TempDir(), "out.cubin")
	opts := linkArgs(t, dir, argsFile, out)
	if argsFile == "link_dc.args" {
		// Links this small make their string-table additions on the
		// spot; here they go through merge's queue (merge/strqueue.go),
		// so that both ways meet nvlink's bytes. And every input is
		// mapped, not read (only files of 1 MiB and more are by default).
		opts.StrQueueMin = 1
		opts.MapFrom = 1
	}
	var stderr bytes.Buffer
	got := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink")
	diags := outOfDir(dir, stderr.String())
	log, _ := os.ReadFile(filepath.Join(dir, ref+".log"))
	if want := strings.TrimSpace(string(rc)); want != "0" {
		if strconv.Itoa(got) != want {
			t.Errorf("exit status %d, nvlink %s", got, want)
		}
		if diags != string(log) {
			t.Errorf("diagnostics:\n got %q\nwant %q", diags, log)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("an output file was written by a failed link")
		}
		return r
	}
	r.linked = true
	if got != 0 {
		t.Fatalf("link failed (%d): %s", got, diags)
	}
	if diags != string(log) {
		t.Errorf("diagnostics:\n got %q\nwant %q", diags, log)
	}
	ours, _ := os.ReadFile(out)
	if keep := os.Getenv("WARPLINK_KEEP"); keep != "" {
		os.WriteFile(filepath.Join(keep, name+"_"+ref+".cubin"), ours, 0o644)
	}
	want, _ := os.ReadFile(filepath.Join(dir, ref+".cubin"))
	rep, err := cmpelf.Compare(ours, want)
	if err != nil {
		t.Fatal(err)
	}
	r.identical, r.equivalent = rep.Identical, rep.Equivalent
	if !rep.Identical {
		// NVIDIA's own tools must accept an output that is not nvlink's
		// byte for byte (when installed).
		toolsAccept(t, out)
	}
	switch {
	case rep.Equivalent && !rep.Identical && os.Getenv("WARPLINK_CORPUS") == "":
		// Every bundled corpus link is byte-identical to nvlink's; keep
		// it so. A corpus named by WARPLINK_CORPUS (another
		// architecture, say) need only be equivalent.
		t.Errorf("equivalent to nvlink but not byte-identical:\n%s", strings.Join(firstN(rep.Diffs, 10), "\n"))
	case !rep.Equivalent:
		t.Errorf("not equivalent to nvlink:\n%s", strings.Join(firstN(rep.Diffs, 15), "\n"))
	}
	return r
}

// toolsAccept requires cuobjdump -elf and nvdisasm, where installed, to
// accept the cubin at path.
func toolsAccept(t *testing.T, path string) {
	for _, tool := range [][]string{{"cuobjdump", "-elf"}, {"nvdisasm"}} {
		if exe, err := exec.LookPath(tool[0]); err == nil {
			if msg, err := exec.Command(exe, append(tool[1:], path)...).CombinedOutput(); err != nil {
				t.Errorf("%s rejects the output: %v: %.200s", tool[0], err, msg)
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func firstN(l []string, n int) []string {
	if len(l) > n {
		return l[:n]
	}
	return l
}
