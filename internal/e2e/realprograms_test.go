package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestRealPrograms checks how TestRealCode finds programs in a code base:
// a folder's .cu files form one program, less those another includes; a
// folder where several files define main holds one program per such
// file; Common folders up the tree join the include path.
func TestRealPrograms(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"lib/Common/helper.h":        "",
		"lib/samples/a/main.cu":      "#include \"kernel.cu\"\nint main() { return 0; }\n",
		"lib/samples/a/kernel.cu":    "__global__ void k() {}\n",
		"lib/samples/a/other.cu":     "__device__ int x;\n",
		"lib/samples/b/readme.txt":   "",
		"ex/one.cu":                  "int main(int argc, char **argv) { return 0; }\n",
		"ex/two.cu":                  "  int main() {}\n",
		"ex/util.cu":                 "__device__ int util;\n",
		"ex/deeper/only/kernels.cu":  "__global__ void k2() {}\n",
		"ex/deeper/only/notcuda.cpp": "int main() {}\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	progs, err := realPrograms(root)
	if err != nil {
		t.Fatal(err)
	}
	type prog struct {
		name string
		srcs []string
		incs []string
	}
	var got []prog
	for _, p := range progs {
		var srcs, incs []string
		for _, s := range p.srcs {
			r, _ := filepath.Rel(root, s)
			srcs = append(srcs, r)
		}
		for _, s := range p.incs {
			r, _ := filepath.Rel(root, s)
			incs = append(incs, r)
		}
		got = append(got, prog{p.name, srcs, incs})
	}
	want := []prog{
		{"ex/one.cu", []string{"ex/one.cu"}, []string{"ex"}},
		{"ex/two.cu", []string{"ex/two.cu"}, []string{"ex"}},
		{"ex/deeper/only", []string{"ex/deeper/only/kernels.cu"}, []string{"ex/deeper/only"}},
		{"lib/samples/a", []string{"lib/samples/a/main.cu", "lib/samples/a/other.cu"}, []string{"lib/samples/a", "lib/Common"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("programs:\n got %q\nwant %q", got, want)
	}
	t.Setenv("WARPLINK_REALCODE_N", "2")
	if sub := realSubset(t, progs); len(sub) != 2 || sub[0].name != "ex/one.cu" || sub[1].name != "ex/deeper/only" {
		t.Errorf("REALCODE_N=2: %v", sub)
	}
}
