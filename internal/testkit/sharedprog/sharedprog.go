// Package sharedprog writes random CUDA programs of shared memory for
// differential tests of the device link (internal/e2e's
// TestNvccSharedFuzz, bench/gpu/sharedprog): __device__ functions with
// __shared__ arrays of several types and sizes, some weak templates, some
// using extern __shared__ memory, kernels calling random subsets of them,
// some with arrays of their own, over one to three files.
package sharedprog

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Generate writes the random program of a seed: its source files and its
// kernels' mangled names. With gpu, the program can run as cubinrun runs
// kernels (one block of 256 threads on a buffer of 256 floats, no dynamic
// shared memory) with one result whatever the threads' timing: no extern
// __shared__ memory, every thread reads its inputs before a barrier and
// writes only its own element.
func Generate(seed uint64, gpu bool) (files []string, kernels []string) {
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
		f.extern = r.IntN(10) < 1 && !gpu
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
	in := "p"
	if gpu {
		in = "q"
	}
	call := func(i int) string {
		if funs[i].weak {
			return fmt.Sprintf("f%d<0>(%s[%d])", i, in, i)
		}
		return fmt.Sprintf("f%d(%s[%d])", i, in, i)
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
				if gpu {
					own = fmt.Sprintf("__shared__ float own%d[5]; own%d[threadIdx.x %% 5] = q[0]; __syncthreads(); r += own%d[1];", k, k, k)
				}
			}
			var terms []string
			for _, c := range kn.calls {
				terms = append(terms, call(c))
			}
			if gpu {
				fmt.Fprintf(&b, "__global__ void k%d(float* p, int n) { float q[8]; for (int i = 0; i < 8; i++) q[i] = p[i]; __syncthreads(); float r = 0; %s r += %s; p[threadIdx.x] = r + threadIdx.x; }\n", k, own, strings.Join(terms, " + "))
			} else {
				fmt.Fprintf(&b, "__global__ void k%d(float* p, int n) { %s p[0] = %s; }\n", k, own, strings.Join(terms, " + "))
			}
		}
		files = append(files, b.String())
	}
	for k := range ks {
		kernels = append(kernels, fmt.Sprintf("_Z2k%dPfi", k))
	}
	return files, kernels
}
