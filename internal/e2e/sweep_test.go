package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/warplink/warplink/elf"
)

// TestNvccSweep compiles every program of testdata/sweep (one folder
// each: its .cu files, linked in name order, and an optional "libs" file
// of extra nvlink arguments) with the real nvcc for sm_80 and sm_90,
// plain, with -G and with -lineinfo, links the cubins with nvlink and with
// warplink, and requires the same exit status and diagnostics, and then
// byte-identical output. Variants
// nvcc cannot build (dynamic parallelism's deprecated API on sm_90,
// cluster dimensions on sm_80) are skipped. About 300 nvcc runs: only
// with WARPLINK_SWEEP=1 (make sweep), nvcc and nvlink.
// WARPLINK_SWEEP_ARCHS (comma-separated, e.g. sm_75,sm_86,sm_89) names
// other architectures to compile and link for, WARPLINK_SWEEP_PROGS
// (comma-separated program names) a subset of the programs, and
// WARPLINK_CUDA the toolkit (useToolkit).
func TestNvccSweep(t *testing.T) {
	if os.Getenv("WARPLINK_SWEEP") == "" {
		t.Skip("set WARPLINK_SWEEP=1 (make sweep) to compile and link the sweep programs")
	}
	lib := useToolkit(t)
	for _, tool := range []string{"nvcc", "nvlink"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	root, _ := filepath.Abs("../../testdata/sweep")
	progs, _ := os.ReadDir(root)
	type variant struct{ arch, flag string }
	var variants []variant
	archs := []string{"sm_80", "sm_90"}
	if a := os.Getenv("WARPLINK_SWEEP_ARCHS"); a != "" {
		archs = strings.Split(a, ",")
	}
	for _, arch := range archs {
		for _, flag := range []string{"", "-G", "-lineinfo"} {
			variants = append(variants, variant{arch, flag})
		}
	}
	tmp := t.TempDir()
	// Compile every (program, variant) in parallel first: nvcc dominates.
	type job struct {
		prog    string
		v       variant
		cubins  []string
		skipped string // why nvcc could not build it
	}
	var jobs []*job
	only := os.Getenv("WARPLINK_SWEEP_PROGS")
	for _, p := range progs {
		if only != "" && !slices.Contains(strings.Split(only, ","), p.Name()) {
			continue
		}
		for _, v := range variants {
			jobs = append(jobs, &job{prog: p.Name(), v: v})
		}
	}
	g, _ := errgroup.WithContext(context.Background())
	g.SetLimit(runtime.GOMAXPROCS(0))
	for _, j := range jobs {
		g.Go(func() error {
			srcs, _ := filepath.Glob(filepath.Join(root, j.prog, "*.cu"))
			sort.Strings(srcs)
			dir := filepath.Join(tmp, j.prog, j.v.arch+j.v.flag)
			os.MkdirAll(dir, 0o755)
			j.cubins, j.skipped = nvccCubins(dir, j.v.arch, srcs, strings.Fields(j.v.flag)...)
			return nil
		})
	}
	g.Wait()
	same, skipped, links := 0, 0, 0 // (the subtests run one after another)
	for _, j := range jobs {
		// Every variant is linked as it is and with --preserve-relocs;
		// -G objects also with the -g that nvcc -G -dlink passes to
		// nvlink.
		extras := [][]string{nil, {"--preserve-relocs"}}
		if j.v.flag == "-G" {
			extras = append(extras, []string{"-g"})
		}
		if (j.v.flag == "" || j.v.flag == "-G") && j.skipped == "" {
			// Plain and -G variants also with --kernels-used naming each
			// kernel (exactly one used kernel: nvlink's root kernel), the
			// first two, and none.
			ks := sweepKernels(j.cubins)
			for _, k := range ks {
				extras = append(extras, []string{"--kernels-used=" + k})
			}
			if len(ks) >= 2 {
				extras = append(extras, []string{"--kernels-used=" + ks[0] + "," + ks[1]})
			}
			extras = append(extras, []string{"--kernels-used=zzznomatch"})
		}
		for _, extra := range extras {
			name := j.prog + " " + j.v.arch + j.v.flag + strings.Join(extra, "")
			links++
			t.Run(strings.ReplaceAll(name, " ", "/"), func(t *testing.T) {
				if j.skipped != "" {
					skipped++
					t.Skip(j.skipped)
				}
				dir := filepath.Dir(j.cubins[0])
				args := []string{"-arch=" + j.v.arch}
				args = append(args, extra...)
				args = append(args, j.cubins...)
				if b, err := os.ReadFile(filepath.Join(root, j.prog, "libs")); err == nil {
					args = append(args, "-L"+lib)
					args = append(args, strings.Fields(string(b))...)
				}
				ref, ours := filepath.Join(dir, "nv"+strings.Join(extra, "")+".cubin"), filepath.Join(dir, "wl"+strings.Join(extra, "")+".cubin")
				_, _, problem, err := diffNvlink(args, ref, ours)
				if err != nil {
					t.Fatal(err)
				}
				if len(problem) > 400 {
					problem = problem[:400] + "..."
				}
				if problem != "" {
					t.Errorf("%s", problem)
				} else {
					same++
				}
			})
		}
	}
	t.Logf("nvcc sweep: %d of %d links byte-identical to %s (%d links of variants nvcc cannot build)",
		same, links-skipped, nvlinkRelease(), skipped)
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// sweepKernels lists the kernels the cubins define, sorted, once each.
func sweepKernels(cubins []string) []string {
	seen := map[string]bool{}
	var ks []string
	for _, c := range cubins {
		b, err := os.ReadFile(c)
		if err != nil {
			continue
		}
		f, err := elf.Parse(b)
		if err != nil {
			continue
		}
		for _, sym := range f.Symbols {
			if sym.Type() == elf.STTFunc && sym.Other&0x10 != 0 && sym.Shndx != elf.SHNUndef && !seen[sym.Name] {
				seen[sym.Name] = true
				ks = append(ks, sym.Name)
			}
		}
	}
	sort.Strings(ks)
	return ks
}
