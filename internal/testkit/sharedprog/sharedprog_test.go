package sharedprog

import (
	"slices"
	"strings"
	"testing"
)

// TestGenerate checks that a seed always gives the same program, that the
// programs vary, and that the GPU form keeps to what cubinrun can run.
func TestGenerate(t *testing.T) {
	a, ka := Generate(7, false)
	b, kb := Generate(7, false)
	if !slices.Equal(a, b) || !slices.Equal(ka, kb) {
		t.Fatal("seed 7 gave two programs")
	}
	distinct := map[string]bool{}
	sawExtern, sawWeak := false, false
	for seed := uint64(1); seed <= 200; seed++ {
		files, kernels := Generate(seed, false)
		src := strings.Join(files, "")
		distinct[src] = true
		sawExtern = sawExtern || strings.Contains(src, "extern __shared__")
		sawWeak = sawWeak || strings.Contains(src, "template <int N>")
		if len(files) < 1 || len(files) > 3 || len(kernels) < 2 {
			t.Fatalf("seed %d: %d files, %d kernels", seed, len(files), len(kernels))
		}
		for _, k := range kernels {
			if !strings.Contains(src, "void "+strings.TrimSuffix(strings.TrimPrefix(k, "_Z2"), "Pfi")+"(float* p, int n)") {
				t.Fatalf("seed %d: kernel %s not defined", seed, k)
			}
		}
		gpu, _ := Generate(seed, true)
		g := strings.Join(gpu, "")
		if strings.Contains(g, "extern __shared__") || strings.Contains(g, "p[0] =") {
			t.Fatalf("seed %d: the GPU form uses extern shared memory or a shared output element:\n%s", seed, g)
		}
	}
	if len(distinct) < 190 || !sawExtern || !sawWeak {
		t.Fatalf("%d distinct programs of 200, extern %v, weak %v", len(distinct), sawExtern, sawWeak)
	}
}
