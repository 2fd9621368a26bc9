package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/cmpelf"
)

// TestCorpusCallgraph links every corpus program (both architectures) from
// its cubins with --dump-callgraph and compares what is printed with
// nvlink 11.8's report recorded in ref_callgraph.log
// (testdata/corpus/record-callgraph.sh).
func TestCorpusCallgraph(t *testing.T) {
	for _, corpus := range []string{corpusSM90, corpusSM80} {
		progs, err := os.ReadDir(corpus)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range progs {
			dir := filepath.Join(corpus, p.Name())
			want, err := os.ReadFile(filepath.Join(dir, "ref_callgraph.log"))
			if err != nil {
				continue
			}
			n++
			t.Run(filepath.Base(corpus)+"/"+p.Name(), func(t *testing.T) {
				args, err := cliLinkArgs(dir, libdir, filepath.Join(t.TempDir(), "out.cubin"))
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, "--dump-callgraph")
				t.Chdir(dir)
				var stderr bytes.Buffer
				linkCLI(args, &stderr)
				if got := stderr.String(); got != string(want) {
					t.Errorf("report differs from nvlink's\n--- warplink\n%s--- nvlink\n%s", got, want)
				}
				if !strings.Contains(stderr.String(), "callgraph for ") {
					t.Errorf("no call graph printed")
				}
			})
		}
		if n < 13 {
			t.Errorf("%s: %d recorded reports, want 13", corpus, n)
		}
	}
}

// preserveRelocsGaps are the corpus links whose --preserve-relocs output is
// not byte-identical to nvlink 11.8's, with the reason (none at present).
var preserveRelocsGaps = map[string]string{}

// TestCorpusPreserveRelocsNvlink links every corpus program from its
// cubins with --preserve-relocs, with warplink and with the installed
// nvlink, and requires identical outputs except for preserveRelocsGaps.
func TestCorpusPreserveRelocsNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"--preserve-relocs"}, preserveRelocsGaps, 50)
}

// TestCorpusDebugNvlink does the same with -g, which nvcc -G -dlink passes
// to nvlink (no dead code elimination, symbols nvlink otherwise drops),
// alone and with --preserve-relocs.
func TestCorpusDebugNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"-g"}, nil, 50)
}

func TestCorpusDebugPreserveRelocsNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"-g", "--preserve-relocs"}, nil, 50)
}

// TestCorpusKeepSystemLibrariesNvlink does the same with libcudadevrt
// added to every link and --keep-system-libraries: nvlink then links the
// device runtime's object even where nothing uses it, but still drops its
// unused functions.
func TestCorpusKeepSystemLibrariesNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"-L" + libdir, "-lcudadevrt", "--keep-system-libraries"}, nil, 50)
}

// testCorpusOptionNvlink links every corpus program (both architectures)
// from its cubins with extra options, with warplink and with the installed
// nvlink, and requires byte-identical outputs except for gaps (which must
// still differ) and at least want identical links.
func testCorpusOptionNvlink(t *testing.T, extra []string, gaps map[string]string, want int) {
	nvlink, err := exec.LookPath("nvlink")
	if err != nil {
		t.Skip("nvlink not installed")
	}
	identical := 0
	var corpora []string // absolute: the loop changes directory
	for _, rel := range []string{corpusSM90, corpusSM80} {
		abs, _ := filepath.Abs(rel)
		corpora = append(corpora, abs)
	}
	for _, corpus := range corpora {
		progs, err := os.ReadDir(corpus)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range []string{"link.args", "link_dc.args"} {
			for _, p := range progs {
				dir := filepath.Join(corpus, p.Name())
				tmp := t.TempDir()
				args, err := cliLinkArgsFrom(dir, link, libdir, filepath.Join(tmp, "out.cubin"))
				if err != nil || p.Name() == "archive" && link == "link.args" {
					continue // (the archive of cubins: an undefined reference)
				}
				args = append(args, extra...)
				cmd := exec.Command(nvlink, args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: nvlink: %v\n%s", p.Name(), err, out)
				}
				ref, _ := os.ReadFile(filepath.Join(tmp, "out.cubin"))
				os.Remove(filepath.Join(tmp, "out.cubin"))
				t.Chdir(dir)
				if rc := linkCLI(args, io.Discard); rc != 0 {
					t.Fatalf("%s: warplink exit %d", p.Name(), rc)
				}
				ours, _ := os.ReadFile(filepath.Join(tmp, "out.cubin"))
				_, gap := gaps[p.Name()]
				switch same := bytes.Equal(ours, ref); {
				case same && gap:
					t.Errorf("%s/%s: now identical; remove it from the gaps", filepath.Base(corpus), p.Name())
				case !same && !gap:
					rep, _ := cmpelf.Compare(ours, ref)
					t.Errorf("%s/%s (%s): differs from nvlink: %v", filepath.Base(corpus), p.Name(), link, firstN(rep.Diffs, 4))
				case same:
					identical++
				}
			}
		}
	}
	t.Logf("%v: %d corpus links byte-identical to nvlink", extra, identical)
	if identical < want {
		t.Errorf("only %d identical links, want %d", identical, want)
	}
}

// cliLinkArgs is the nvlink command line recorded for the corpus program
// in dir (link.args), with the device-runtime folder and the output path
// filled in.
func cliLinkArgs(dir, libdir, out string) ([]string, error) {
	return cliLinkArgsFrom(dir, "link.args", libdir, out)
}

// cliLinkArgsFrom is cliLinkArgs for the arguments file name of dir
// (link.args: the cubins; link_dc.args: nvcc -dlink's, host objects).
func cliLinkArgsFrom(dir, name, libdir, out string) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	args := strings.Fields(strings.ReplaceAll(string(raw), "@CUDA_LIBDIR@", libdir))
	for i := range args {
		if args[i] == "ref.cubin" || args[i] == "ref_dc.cubin" {
			args[i] = out
		}
	}
	return args, nil
}
