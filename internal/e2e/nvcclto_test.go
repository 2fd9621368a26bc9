package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/jit"
	"github.com/warplink/warplink/internal/toolkit"
)

// TestNvccDlinkLTO runs `nvcc -dlink -dlto` with warplink as its nvlink
// (first on PATH, warplink-nvvm beside it) on the `nvcc -dc -dlto` objects
// of testdata/jit (made by nvcc 11.8: record.sh). Debian's nvcc passes an
// -nvvmpath without lib64/libnvvm.so, where nvlink 11.8 fails ("elfLink
// linker library load error"); warplink finds libnvvm where the toolkit
// installed it and must link. The link nvcc ran is then made again by
// both, with an -nvvmpath nvlink can use: the same cubin and register
// file, and the cubin is the one nvcc embedded. Skipped without nvcc,
// nvlink 11.8, cuobjdump, ptxas and libnvvm.
func TestNvccDlinkLTO(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"nvcc", "cuobjdump", "nvlink", "ptxas"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	if testing.Short() {
		t.Skip("slow: runs nvcc")
	}
	if nv, _ := exec.LookPath("nvlink"); toolkit.NvlinkRelease(nv) != jit.Release {
		t.Skipf("nvlink %s is not release %s, whose nvcc made the objects", nv, jit.Release)
	}
	warplink, helper := buildJITTools(t)
	lib, err := exec.Command(helper, "-check", "").Output()
	if err != nil {
		t.Skip("no libnvvm")
	}
	bin := filepath.Dir(warplink) // (warplink is built there as "nvlink")
	nvvm := t.TempDir()
	os.MkdirAll(filepath.Join(nvvm, "lib64"), 0o755)
	libPath := strings.TrimSpace(string(lib))
	if !filepath.IsAbs(libPath) {
		libPath = findLoaderLib(libPath)
	}
	os.Symlink(libPath, filepath.Join(nvvm, "lib64", "libnvvm.so"))
	for _, prog := range []struct {
		name string
		tus  []string
		libs []string
	}{
		{"xcall", []string{"a", "b", "c"}, nil}, // (nvcc adds -lcudadevrt: a whole program)
		{"cdp", []string{"a", "b"}, []string{"-lcudadevrt"}},
		{"archive", []string{"main", "lib", "lib2"}, nil},
	} {
		t.Run(prog.name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			src, _ := filepath.Abs(filepath.Join(jitDir, prog.name))
			run := func(dir string, env []string, args ...string) string {
				t.Helper()
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), env...)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			var objs []string
			for _, tu := range prog.tus {
				objs = append(objs, filepath.Join(src, tu+".lto80.o"))
			}
			// nvcc -dlink -dlto through warplink; -v shows the nvlink line.
			env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
			args := append([]string{"nvcc", "-v", "-arch=sm_80", "-dlink", "-dlto", "-o", "dlink.o"}, objs...)
			log := run(work, env, append(args, prog.libs...)...)
			if !strings.Contains(log, "nvlink ") {
				t.Fatalf("nvcc ran no nvlink:\n%s", log)
			}
			os.Mkdir(filepath.Join(work, "x"), 0o755)
			run(filepath.Join(work, "x"), nil, "cuobjdump", "-xelf", "all", "../dlink.o")
			m, _ := filepath.Glob(filepath.Join(work, "x", "*.cubin"))
			if len(m) != 1 {
				t.Fatalf("%d cubins embedded", len(m))
			}
			embedded, _ := os.ReadFile(m[0])
			// The link nvcc ran, by both tools, with nvcc's arguments (its
			// -v line) but an -nvvmpath nvlink can use and files of ours.
			var nvArgs []string
			for _, line := range strings.Split(log, "\n") {
				if rest, ok := strings.CutPrefix(line, "#$ nvlink "); ok {
					for _, f := range strings.Fields(rest) {
						nvArgs = append(nvArgs, strings.Trim(f, `"`))
					}
				}
			}
			link := func(tool, tag string) ([]byte, []byte) {
				a := []string{tool}
				for i := 0; i < len(nvArgs); i++ {
					switch f := nvArgs[i]; {
					case strings.HasPrefix(f, "-nvvmpath="):
						a = append(a, "-nvvmpath="+nvvm)
					case strings.HasPrefix(f, "--register-link-binaries="):
						a = append(a, "--register-link-binaries="+tag+".reg.c")
					case f == "-o":
						a = append(a, "-o", tag+".cubin")
						i++
					default:
						a = append(a, f)
					}
				}
				run(work, []string{"WARPLINK_NVVM_HELPER=" + helper}, a...)
				c, _ := os.ReadFile(filepath.Join(work, tag+".cubin"))
				r, _ := os.ReadFile(filepath.Join(work, tag+".reg.c"))
				return c, r
			}
			refCubin, refReg := link("nvlink", "nv")
			ourCubin, ourReg := link(warplink, "wl")
			if !bytes.Equal(refCubin, ourCubin) || !bytes.Equal(refReg, ourReg) {
				t.Errorf("warplink's LTO link differs from nvlink's (cubin same: %v; register file:\n%s\nwant:\n%s)", bytes.Equal(refCubin, ourCubin), ourReg, refReg)
			}
			if !bytes.Equal(embedded, refCubin) {
				t.Errorf("nvcc embedded a cubin (%d bytes) other than nvlink's (%d bytes)", len(embedded), len(refCubin))
			}
		})
	}
}
