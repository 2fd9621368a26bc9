package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/warplink/warplink/internal/cmpelf"
)

// TestNvccSharedFuzz compiles random programs of shared memory with the
// real nvcc and links each with nvlink and with warplink, requiring the
// same exit status and byte-identical output: __device__ functions with
// __shared__ arrays of several types and sizes (some of them weak
// templates, some using extern __shared__ memory), kernels calling random
// subsets of them, some with arrays of their own, over one to three
// files. Each program is linked as it is, with --preserve-relocs, and
// with --kernels-used naming one, two and three of its kernels. It found nvlink 11.8's layers of
// module shared variables (merge/layout.go). Only with
// WARPLINK_SHAREDFUZZ=N (N programs from seed 1 on; make fuzz-shared),
// nvcc and nvlink; WARPLINK_SWEEP_ARCHS names the architectures (default
// sm_90), WARPLINK_SHAREDFUZZ_DIR a folder to keep the programs in.
func TestNvccSharedFuzz(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WARPLINK_SHAREDFUZZ"))
	if n <= 0 {
		t.Skip("set WARPLINK_SHAREDFUZZ=N (make fuzz-shared) to compile and link N random shared-memory programs")
	}
	for _, tool := range []string{"nvcc", "nvlink"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	archs := []string{"sm_90"}
	if a := os.Getenv("WARPLINK_SWEEP_ARCHS"); a != "" {
		archs = strings.Split(a, ",")
	}
	tmp := t.TempDir()
	if d := os.Getenv("WARPLINK_SHAREDFUZZ_DIR"); d != "" {
		tmp = d // (kept, to look at a program that differs)
	}
	type job struct {
		seed    int
		arch    string
		dir     string
		kernels []string
		cubins  []string
		failed  string
	}
	var jobs []*job
	for _, arch := range archs {
		for seed := 1; seed <= n; seed++ {
			dir := filepath.Join(tmp, fmt.Sprintf("%s-%d", arch, seed))
			os.MkdirAll(dir, 0o755)
			files, kernels := sharedProgram(uint64(seed))
			j := &job{seed: seed, arch: arch, dir: dir, kernels: kernels}
			for k, src := range files {
				name := filepath.Join(dir, fmt.Sprintf("f%d.cu", k))
				if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			jobs = append(jobs, j)
		}
	}
	g, _ := errgroup.WithContext(context.Background())
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range jobs {
		g.Go(func() error {
			srcs, _ := filepath.Glob(filepath.Join(j.dir, "f*.cu"))
			for _, src := range srcs {
				out := strings.TrimSuffix(src, ".cu") + ".cubin"
				if msg, err := exec.Command("nvcc", "-arch="+j.arch, "-rdc=true", "-cubin", "-o", out, src).CombinedOutput(); err != nil {
					j.failed = fmt.Sprintf("nvcc %s: %v: %s", filepath.Base(src), err, firstLine(string(msg)))
					return nil
				}
				j.cubins = append(j.cubins, out)
			}
			return nil
		})
	}
	g.Wait()
	var mu sync.Mutex
	same, links, internal := 0, 0, 0
	for _, j := range jobs {
		ks := j.kernels
		variants := [][]string{nil, {"--preserve-relocs"}, {"--kernels-used=" + ks[0]}, {"--kernels-used=" + ks[0] + "," + ks[1]}}
		if len(ks) >= 3 {
			variants = append(variants, []string{"--kernels-used=" + ks[1] + "," + ks[2]})
		}
		if len(ks) >= 4 {
			variants = append(variants, []string{"--kernels-used=" + ks[0] + "," + ks[1] + "," + ks[3]})
		}
		for v, extra := range variants {
			links++
			t.Run(fmt.Sprintf("%s/seed%d/%d", j.arch, j.seed, v), func(t *testing.T) {
				if j.failed != "" {
					t.Fatalf("%s (program in %s)", j.failed, j.dir)
				}
				args := append([]string{"-arch=" + j.arch}, extra...)
				args = append(args, j.cubins...)
				ref, ours := filepath.Join(j.dir, fmt.Sprintf("nv%d.cubin", v)), filepath.Join(j.dir, fmt.Sprintf("wl%d.cubin", v))
				nv := exec.Command("nvlink", append(args, "-o", ref)...)
				var nvLog bytes.Buffer
				nv.Stdout, nv.Stderr = &nvLog, &nvLog
				nvRC := 0
				if err := nv.Run(); err != nil {
					ee, ok := err.(*exec.ExitError)
					if !ok {
						t.Fatalf("nvlink: %v", err)
					}
					nvRC = ee.ExitCode()
				}
				if nvRC != 0 && strings.Contains(nvLog.String(), "Internal error") {
					// nvlink 11.8's own failure ("reference to deleted
					// symbol" with --preserve-relocs on sm_80), which
					// warplink does not copy.
					mu.Lock()
					internal++
					mu.Unlock()
					t.Skipf("nvlink: %s", firstLine(nvLog.String()))
				}
				var wlLog bytes.Buffer
				wlRC := linkCLI(append(args, "-o", ours), &wlLog)
				switch {
				case wlRC != nvRC:
					t.Fatalf("exit status %d, nvlink %d: %q, nvlink %q", wlRC, nvRC, firstLine(wlLog.String()), firstLine(nvLog.String()))
				case errorLines(wlLog.String()) != errorLines(nvLog.String()):
					t.Fatalf("diagnostics %q, nvlink %q", wlLog.String(), nvLog.String())
				case nvRC == 0:
					a, _ := os.ReadFile(ref)
					b, err := os.ReadFile(ours)
					if err != nil {
						t.Fatal("no output written")
					}
					if !bytes.Equal(a, b) {
						msg := "output differs"
						if rep, err := cmpelf.Compare(b, a); err == nil {
							msg += ": " + strings.Join(firstN(rep.Diffs, 3), "; ")
						}
						t.Fatalf("%s (program in %s)", msg, j.dir)
					}
				}
				mu.Lock()
				same++
				mu.Unlock()
			})
		}
	}
	t.Logf("shared-memory fuzz: %d of %d links byte-identical to nvlink (%d programs, %s; %d links nvlink fails with an internal error)", same, links-internal, len(jobs), strings.Join(archs, ", "), internal)
}

// sharedProgram writes the random program of a seed: its source files and
// its kernels' mangled names.
func sharedProgram(seed uint64) (files []string, kernels []string) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	types := []string{"float", "double", "char", "int", "short"}
	counts := []int{1, 2, 3, 4, 8, 16, 24, 33, 40}
	type fun struct {
		vars   []string // declarations
		uses   []string // statements
		ret    []string // terms of the result
		weak   bool
		extern bool
	}
	nfun, nk, nfiles := 2+r.IntN(5), 2+r.IntN(5), 1+r.IntN(3)
	funs := make([]fun, nfun)
	for i := range funs {
		f := &funs[i]
		f.weak = r.IntN(10) < 4
		f.extern = r.IntN(10) < 1
		for j := range 1 + r.IntN(3) {
			typ, cnt := types[r.IntN(len(types))], counts[r.IntN(len(counts))]
			f.vars = append(f.vars, fmt.Sprintf("__shared__ %s v%d[%d];", typ, j, cnt))
			f.uses = append(f.uses, fmt.Sprintf("v%d[threadIdx.x %% %d] = (%s)x;", j, cnt, typ))
			f.ret = append(f.ret, fmt.Sprintf("(float)v%d[%d]", j, cnt-1))
		}
		if f.extern {
			f.vars = append(f.vars, "extern __shared__ float dyn[];")
			f.uses = append(f.uses, "dyn[threadIdx.x] = x;")
			f.ret = append(f.ret, "dyn[0]")
		}
	}
	def := func(i int) string {
		f := funs[i]
		head := fmt.Sprintf("__device__ __noinline__ float f%d(float x)", i)
		if f.weak {
			head = fmt.Sprintf("template <int N> __device__ __noinline__ float f%d(float x)", i)
		}
		return fmt.Sprintf("%s { %s %s __syncthreads(); return %s; }\n", head, strings.Join(f.vars, " "), strings.Join(f.uses, " "), strings.Join(f.ret, " + "))
	}
	call := func(i int) string {
		if funs[i].weak {
			return fmt.Sprintf("f%d<0>(p[%d])", i, i)
		}
		return fmt.Sprintf("f%d(p[%d])", i, i)
	}
	type kernel struct {
		calls []int
		own   bool
		file  int
	}
	ks := make([]kernel, nk)
	for k := range ks {
		ks[k] = kernel{calls: r.Perm(nfun)[:1+r.IntN(min(3, nfun))], own: r.IntN(10) < 3, file: r.IntN(nfiles)}
	}
	for fi := range nfiles {
		var b strings.Builder
		needed := map[int]bool{}
		for _, k := range ks {
			if k.file == fi {
				for _, c := range k.calls {
					needed[c] = true
				}
			}
		}
		for i, f := range funs {
			switch {
			case f.weak && needed[i]:
				b.WriteString(def(i))
			case !f.weak && fi == 0:
				b.WriteString(def(i))
			case !f.weak && needed[i]:
				fmt.Fprintf(&b, "extern __device__ float f%d(float x);\n", i)
			}
		}
		for k, kn := range ks {
			if kn.file != fi {
				continue
			}
			own := ""
			if kn.own {
				own = fmt.Sprintf("__shared__ float own%d[5]; own%d[threadIdx.x %% 5] = p[0]; __syncthreads(); p[2] = own%d[1];", k, k, k)
			}
			var terms []string
			for _, c := range kn.calls {
				terms = append(terms, call(c))
			}
			fmt.Fprintf(&b, "__global__ void k%d(float* p, int n) { %s p[0] = %s; }\n", k, own, strings.Join(terms, " + "))
		}
		files = append(files, b.String())
	}
	for k := range ks {
		kernels = append(kernels, fmt.Sprintf("_Z2k%dPfi", k))
	}
	return files, kernels
}
