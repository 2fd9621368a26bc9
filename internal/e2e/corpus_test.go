// Package e2e links the bundled corpus with warplink and compares each
// output with the output nvlink produced for the same inputs.
package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/cmpelf"
	"github.com/warplink/warplink/merge"
)

const corpusDir = "../../testdata/corpus/cuda11.8-sm_90"

// libdir holds the bundled libcudadevrt.a (absolute: tests chdir).
var libdir, _ = filepath.Abs("../../testdata/cudalib")

// linkArgs reads an args file and returns Options for it, with paths made
// relative to dir and @CUDA_LIBDIR@ pointing at the bundled libcudadevrt.
func linkArgs(t *testing.T, dir, file, out string) *merge.Options {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	o := &merge.Options{Output: out}
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
			o.LibDirs = append(o.LibDirs, strings.ReplaceAll(strings.TrimPrefix(a, "-L"), "@CUDA_LIBDIR@", libdir))
		case strings.HasPrefix(a, "-l"):
			o.Inputs = append(o.Inputs, a)
		case a == "-o":
			i++
		default:
			o.Inputs = append(o.Inputs, a)
		}
	}
	return o
}

// TestCorpusCubins links every program from its cubins (link.args) and
// compares with nvlink's ref.cubin.
func TestCorpusCubins(t *testing.T) {
	progs, _ := os.ReadDir(corpusDir)
	identical, equivalent := 0, 0
	for _, p := range progs {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(corpusDir, p.Name())
		t.Run(p.Name(), func(t *testing.T) {
			dir, _ := filepath.Abs(dir)
			t.Chdir(dir)
			rc, _ := os.ReadFile(filepath.Join(dir, "ref.rc"))
			out := filepath.Join(t.TempDir(), "out.cubin")
			opts := linkArgs(t, dir, "link.args", out)
			var stderr bytes.Buffer
			got := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink")
			if want := strings.TrimSpace(string(rc)); want != "0" {
				log, _ := os.ReadFile(filepath.Join(dir, "ref.log"))
				if got == 0 {
					t.Fatalf("link succeeded; nvlink exited %s with %q", want, log)
				}
				if stderr.String() != string(log) {
					t.Errorf("diagnostics:\n got %q\nwant %q", stderr.String(), log)
				}
				return
			}
			if got != 0 {
				t.Fatalf("link failed (%d): %s", got, stderr.String())
			}
			ours, _ := os.ReadFile(out)
			if keep := os.Getenv("WARPLINK_KEEP"); keep != "" {
				os.WriteFile(filepath.Join(keep, p.Name()+".cubin"), ours, 0o644)
			}
			ref, _ := os.ReadFile(filepath.Join(dir, "ref.cubin"))
			rep, err := cmpelf.Compare(ours, ref)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Identical {
				identical++
			}
			if rep.Equivalent {
				equivalent++
			}
			if !rep.Equivalent {
				n := len(rep.Diffs)
				if n > 15 {
					n = 15
				}
				t.Errorf("not equivalent to nvlink:\n%s", strings.Join(rep.Diffs[:n], "\n"))
			}
		})
	}
	t.Logf("corpus cubin links: %d byte-identical, %d equivalent", identical, equivalent)
}
