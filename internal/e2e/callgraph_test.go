package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
				raw, err := os.ReadFile(filepath.Join(dir, "link.args"))
				if err != nil {
					t.Fatal(err)
				}
				args := strings.Fields(strings.ReplaceAll(string(raw), "@CUDA_LIBDIR@", libdir))
				for i := range args {
					if args[i] == "ref.cubin" {
						args[i] = filepath.Join(t.TempDir(), "out.cubin")
					}
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
