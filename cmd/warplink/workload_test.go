package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/warplink/warplink/bench/gen"
)

// workloads are the generated links the tests share (gen.Config{N: n,
// Seed: 1}), each written once per run: creating thousands of files is
// most of what those tests cost. TestMain removes their folder.
var workloads struct {
	mu   sync.Mutex
	dir  string
	sets map[int]workload
}

// workload is one generated link: its inputs' paths, in link order, and
// their size in bytes.
type workload struct {
	inputs []string
	size   int64
}

// TestMain removes the generated workloads once the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if workloads.dir != "" {
		os.RemoveAll(workloads.dir)
	}
	os.Exit(code)
}

// generated returns the workload of n objects, writing it on the first
// call for n; it fails the test if it cannot.
func generated(t *testing.T, n int) workload {
	t.Helper()
	workloads.mu.Lock()
	defer workloads.mu.Unlock()
	if w, ok := workloads.sets[n]; ok {
		return w
	}
	tm, err := gen.LoadTemplates(filepath.Join("..", "..", "testdata", "corpus", "cuda11.8-sm_90"))
	if err != nil {
		t.Fatal(err)
	}
	if workloads.dir == "" {
		if workloads.dir, err = os.MkdirTemp("", "warplink-workloads-"); err != nil {
			t.Fatal(err)
		}
		workloads.sets = map[int]workload{}
	}
	dir, err := os.MkdirTemp(workloads.dir, "")
	if err != nil {
		t.Fatal(err)
	}
	names, size, err := tm.WriteDir(dir, gen.Config{N: n, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := workload{size: size}
	for _, name := range names {
		w.inputs = append(w.inputs, filepath.Join(dir, name))
	}
	workloads.sets[n] = w
	return w
}
