package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNvccDlink runs the real nvcc -dlink on bundled nvcc -dc objects
// twice, once with nvlink and once with warplink installed as nvlink first
// on PATH (nvcc runs "nvlink" through PATH), and requires the device code
// nvcc embeds in the two objects to be byte-identical. Skipped without
// nvcc, cuobjdump and nvlink. (make sweep compiles new programs with nvcc
// and links them both ways.)
func TestNvccDlink(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"nvcc", "cuobjdump", "nvlink"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	if testing.Short() {
		t.Skip("slow: runs nvcc")
	}
	tmp, bin := t.TempDir(), warplinkBin(t)
	for _, prog := range []struct {
		name string
		dir  string // the objects' (nvcc 11.8 -dc, sm_90)
		objs []string
		libs []string
	}{
		{"xcall", corpusSM90 + "/xcall", []string{"a", "b", "c"}, nil},
		{"cdp", corpusSM90 + "/cdp", []string{"a", "b"}, []string{"-lcudadevrt"}}, // dynamic parallelism
		// Host code launching some kernels: nvlink removes the others
		// (host reference information; templates, static kernels).
		{"host-info", "../../testdata/crafted/host-info", []string{"a", "b"}, nil},
		{"host-info-patterns", "../../testdata/crafted/host-info-patterns", []string{"c", "d"}, nil},
	} {
		t.Run(prog.name, func(t *testing.T) {
			t.Parallel()
			work := filepath.Join(tmp, prog.name)
			os.Mkdir(work, 0o755)
			src, _ := filepath.Abs(prog.dir)
			run := func(dir string, env []string, args ...string) {
				t.Helper()
				cmd := exec.Command(args[0], args[1:]...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), env...)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %v\n%s", args, err, out)
				}
			}
			cubin := func(name string, env []string) []byte {
				args := []string{"nvcc", "-arch=sm_90", "-dlink", "-o", name + ".o"}
				for _, o := range prog.objs {
					args = append(args, filepath.Join(src, o+".o"))
				}
				run(work, env, append(args, prog.libs...)...)
				dir := filepath.Join(work, name)
				os.Mkdir(dir, 0o755)
				run(dir, nil, "cuobjdump", "-xelf", "all", "../"+name+".o")
				m, _ := filepath.Glob(filepath.Join(dir, "*.cubin"))
				if len(m) != 1 {
					t.Fatalf("%s: %d cubins embedded", name, len(m))
				}
				b, _ := os.ReadFile(m[0])
				return b
			}
			ref := cubin("nv", nil)
			ours := cubin("wl", []string{"PATH=" + bin + ":" + os.Getenv("PATH")})
			if !bytes.Equal(ref, ours) {
				t.Fatalf("device code of nvcc -dlink differs: warplink %d bytes, nvlink %d bytes", len(ours), len(ref))
			}
		})
	}
}
