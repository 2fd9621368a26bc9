package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/warplink/warplink/internal/testkit/sharedprog"
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
// sm_90), WARPLINK_SHAREDFUZZ_DIR a folder to keep the programs in,
// WARPLINK_SHAREDFUZZ_NVCC more nvcc flags (-G, -lineinfo).
func TestNvccSharedFuzz(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WARPLINK_SHAREDFUZZ"))
	if n <= 0 {
		t.Skip("set WARPLINK_SHAREDFUZZ=N (make fuzz-shared) to compile and link N random shared-memory programs")
	}
	useToolkit(t)
	for _, tool := range []string{"nvcc", "nvlink"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	archs := []string{"sm_90"}
	if a := os.Getenv("WARPLINK_SWEEP_ARCHS"); a != "" {
		archs = strings.Split(a, ",")
	}
	// WARPLINK_SHAREDFUZZ_NVCC: more nvcc flags (-G: the programs are
	// then also linked with the -g that nvcc -G -dlink passes).
	nvccFlags := strings.Fields(os.Getenv("WARPLINK_SHAREDFUZZ_NVCC"))
	debug := slices.Contains(nvccFlags, "-G")
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
			files, kernels := sharedprog.Generate(uint64(seed), false)
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
			j.cubins, j.failed = nvccCubins(j.dir, j.arch, srcs, nvccFlags...)
			return nil
		})
	}
	g.Wait()
	same, links, internal := 0, 0, 0 // (the subtests run one after another)
	for _, j := range jobs {
		ks := j.kernels
		variants := [][]string{nil, {"--preserve-relocs"}, {"--kernels-used=" + ks[0]}, {"--kernels-used=" + ks[0] + "," + ks[1]}}
		if len(ks) >= 3 {
			variants = append(variants, []string{"--kernels-used=" + ks[1] + "," + ks[2]})
		}
		if len(ks) >= 4 {
			variants = append(variants, []string{"--kernels-used=" + ks[0] + "," + ks[1] + "," + ks[3]})
		}
		if debug {
			variants = append(variants, []string{"-g"})
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
				nvRC, nvLog, problem, err := diffNvlink(args, ref, ours)
				switch {
				case err != nil:
					t.Fatal(err)
				case nvRC != 0 && strings.Contains(nvLog, "Internal error"):
					// nvlink 11.8's own failure ("reference to deleted
					// symbol" with --preserve-relocs on sm_80), which
					// warplink does not copy.
					internal++
					t.Skipf("nvlink: %s", firstLine(nvLog))
				case problem != "":
					t.Fatalf("%s (program in %s)", problem, j.dir)
				}
				same++
			})
		}
	}
	t.Logf("shared-memory fuzz: %d of %d links byte-identical to %s (%d programs, %s; %d links nvlink fails with an internal error)", same, links-internal, nvlinkRelease(), len(jobs), strings.Join(archs, ", "), internal)
}
