package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/warplink/warplink/bench/gen"
)

// workloadObjects is the most objects a test links: the generated
// workload of that many (gen.Config{N: workloadObjects, Seed: 1}) is
// written once per run, and smaller links are prefixes of it (creating
// thousands of files is most of what those tests cost). TestMain removes
// its folder.
const workloadObjects = 3000

var workloads struct {
	once   sync.Once
	dir    string
	inputs []string // paths, in link order
	sizes  []int64  // by input
	units  []int    // by input: its gen.Object.Unit
	err    error
}

// workload is one generated link: its inputs' paths, in link order, and
// their size in bytes.
type workload struct {
	inputs []string
	size   int64
}

// TestMain removes the generated workload once the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if workloads.dir != "" {
		os.RemoveAll(workloads.dir)
	}
	os.Exit(code)
}

// generated returns the shortest prefix of the generated workload that has
// at least n objects and ends with a whole unit (gen.Object.Unit), writing
// the workload on the first call; it fails the test if it cannot.
func generated(t *testing.T, n int) workload {
	t.Helper()
	workloads.once.Do(func() {
		tm, err := gen.LoadTemplates(filepath.Join("..", "..", "testdata", "corpus", "cuda11.8-sm_90"))
		if err != nil {
			workloads.err = err
			return
		}
		if workloads.dir, workloads.err = os.MkdirTemp("", "warplink-workload-"); workloads.err != nil {
			return
		}
		workloads.err = tm.Generate(gen.Config{N: workloadObjects, Seed: 1}, func(o gen.Object) error {
			path := filepath.Join(workloads.dir, o.Name)
			workloads.inputs, workloads.sizes = append(workloads.inputs, path), append(workloads.sizes, int64(len(o.Data)))
			workloads.units = append(workloads.units, o.Unit)
			return os.WriteFile(path, o.Data, 0o644)
		})
	})
	if workloads.err != nil {
		t.Fatal(workloads.err)
	}
	if n > workloadObjects {
		t.Fatalf("%d objects: the workload has %d", n, workloadObjects)
	}
	var w workload
	for i, in := range workloads.inputs {
		w.inputs, w.size = append(w.inputs, in), w.size+workloads.sizes[i]
		if len(w.inputs) >= n && (i+1 == len(workloads.units) || workloads.units[i+1] != workloads.units[i]) {
			break
		}
	}
	return w
}
