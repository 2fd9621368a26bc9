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
	t.Parallel()
	for _, corpus := range []string{corpusSM90, corpusSM80} {
		progs, err := os.ReadDir(corpus)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range progs {
			dir, _ := filepath.Abs(filepath.Join(corpus, p.Name()))
			want, err := os.ReadFile(filepath.Join(dir, "ref_callgraph.log"))
			if err != nil {
				continue
			}
			n++
			t.Run(filepath.Base(corpus)+"/"+p.Name(), func(t *testing.T) {
				t.Parallel()
				args, err := cliLinkArgs(dir, libdir, filepath.Join(t.TempDir(), "out.cubin"))
				if err != nil {
					t.Fatal(err)
				}
				args = append(args, "--dump-callgraph")
				var stderr bytes.Buffer
				linkCLI(dir, args, &stderr)
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

// TestCorpusPreserveRelocsNvlink links every corpus program from its
// cubins with --preserve-relocs, with warplink and with the installed
// nvlink, and requires identical outputs.
func TestCorpusPreserveRelocsNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"--preserve-relocs"}, 50)
}

// TestCorpusDebugNvlink does the same with -g, which nvcc -G -dlink passes
// to nvlink (no dead code elimination, symbols nvlink otherwise drops),
// alone and with --preserve-relocs.
func TestCorpusDebugNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"-g"}, 50)
}

func TestCorpusDebugPreserveRelocsNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"-g", "--preserve-relocs"}, 50)
}

// TestCorpusKeepSystemLibrariesNvlink does the same with libcudadevrt
// added to every link and --keep-system-libraries: nvlink then links the
// device runtime's object even where nothing uses it, but still drops its
// unused functions.
func TestCorpusKeepSystemLibrariesNvlink(t *testing.T) {
	testCorpusOptionNvlink(t, []string{"-L" + libdir, "-lcudadevrt", "--keep-system-libraries"}, 50)
}

// testCorpusOptionNvlink links every corpus program (both architectures)
// from its cubins and from its host objects with extra options, with
// warplink and with the installed nvlink, and requires byte-identical
// outputs, at least want of them.
func testCorpusOptionNvlink(t *testing.T, extra []string, want int) {
	t.Parallel()
	nvlink, err := exec.LookPath("nvlink")
	if err != nil {
		t.Skip("nvlink not installed")
	}
	type link struct{ corpus, prog, args string }
	var links []link
	for _, rel := range []string{corpusSM90, corpusSM80} {
		corpus, _ := filepath.Abs(rel)
		progs, err := os.ReadDir(corpus)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range []string{"link.args", "link_dc.args"} {
			for _, p := range progs {
				if p.Name() != "archive" || args != "link.args" { // (the archive of cubins: an undefined reference)
					links = append(links, link{corpus, p.Name(), args})
				}
			}
		}
	}
	identical := make([]bool, len(links))
	t.Run("links", func(t *testing.T) {
		for k, l := range links {
			t.Run(filepath.Base(l.corpus)+"/"+l.prog+"/"+l.args, func(t *testing.T) {
				t.Parallel()
				dir, tmp := filepath.Join(l.corpus, l.prog), t.TempDir()
				args, err := cliLinkArgsFrom(dir, l.args, libdir, filepath.Join(tmp, "out.cubin"))
				if err != nil {
					t.Skip(err)
				}
				args = append(args, extra...)
				cmd := exec.Command(nvlink, args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("nvlink: %v\n%s", err, out)
				}
				ref, _ := os.ReadFile(filepath.Join(tmp, "out.cubin"))
				os.Remove(filepath.Join(tmp, "out.cubin"))
				if rc := linkCLI(dir, args, io.Discard); rc != 0 {
					t.Fatalf("warplink exit %d", rc)
				}
				ours, _ := os.ReadFile(filepath.Join(tmp, "out.cubin"))
				if identical[k] = bytes.Equal(ours, ref); !identical[k] {
					rep, _ := cmpelf.Compare(ours, ref)
					t.Errorf("differs from nvlink: %v", firstN(rep.Diffs, 4))
				}
			})
		}
	})
	n := 0
	for _, same := range identical {
		n += b2i(same)
	}
	t.Logf("%v: %d corpus links byte-identical to nvlink", extra, n)
	if n < want {
		t.Errorf("only %d identical links, want %d", n, want)
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
