package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Real build systems drive the device link of testdata/buildsys (a small
// separately compiled code base) once with the installed nvlink and once
// with warplink in its place; the device code they embed must be
// byte-identical and nvlink's messages the same. docs/usage.md shows the
// same set-ups by hand.

// nvlinkShim builds warplink and returns a folder holding an "nvlink" that
// notes each command line in the returned log file and runs warplink (as
// "nvlink", so that it names itself as nvlink does).
func nvlinkShim(t *testing.T) (dir, log string) {
	bin := buildNvlink(t)
	dir = filepath.Join(t.TempDir(), "shim")
	os.Mkdir(dir, 0o755)
	log = filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + log + "'\nexec '" + bin + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "nvlink"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, log
}

// buildsysRun runs a command in dir with PATH set to path, fails the test
// on an error and returns its output.
func buildsysRun(t *testing.T, dir, path string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// nvlinkMessages are the lines of a build's output that nvlink printed.
func nvlinkMessages(out string) []string {
	var l []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "nvlink ") {
			l = append(l, line)
		}
	}
	return l
}

// compareBuilds requires the embedded cubins of the two files to be
// identical, warplink to have run (its shim's log) and the nvlink messages
// of the two builds to be the same.
func compareBuilds(t *testing.T, ref, ours []byte, refOut, ourOut, shimLog string) {
	t.Helper()
	calls, _ := os.ReadFile(shimLog)
	if len(bytes.TrimSpace(calls)) == 0 {
		t.Fatal("the build did not run warplink")
	}
	t.Logf("warplink ran as nvlink:\n%s", calls)
	a, err := embeddedCubins(ref)
	if err != nil {
		t.Fatalf("nvlink's build: %v", err)
	}
	b, err := embeddedCubins(ours)
	if err != nil {
		t.Fatalf("warplink's build: %v", err)
	}
	if len(a) == 0 {
		t.Fatal("nvlink's build embeds no cubin")
	}
	if r := realCompare("build", b, a); r.outcome != realIdentical {
		t.Errorf("embedded device code: %s\n%s", realOutcomeNames[r.outcome], r.detail)
	}
	if ourMsgs, refMsgs := nvlinkMessages(ourOut), nvlinkMessages(refOut); !slices.Equal(ourMsgs, refMsgs) {
		t.Errorf("nvlink messages differ:\nwarplink:\n%s\nnvlink:\n%s", strings.Join(ourMsgs, "\n"), strings.Join(refMsgs, "\n"))
	}
}

// TestCMakeSeparable builds testdata/buildsys with CMake (CUDA language,
// CUDA_SEPARABLE_COMPILATION ON, sm_80 and sm_90), which device-links the
// program through nvcc -dlink; then again with warplink first on PATH as
// nvlink (the toolkit layout where nvlink is not beside nvcc, as Debian's;
// docs/usage.md), and compares the device code embedded in the two
// cmake_device_link.o. Runs under make buildsys; skipped without cmake,
// nvcc and nvlink.
func TestCMakeSeparable(t *testing.T) {
	buildsysWanted(t)
	for _, tool := range []string{"cmake", "nvcc", "nvlink"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	src, _ := filepath.Abs("../../testdata/buildsys")
	shim, log := nvlinkShim(t)
	shimPATH := shim + string(os.PathListSeparator) + os.Getenv("PATH")
	if got := nvccNvlink(shimPATH); got != filepath.Join(shim, "nvlink") {
		// nvcc.profile puts a folder with an nvlink before PATH (NVIDIA's
		// layout): docs/usage.md's shadow toolkit is the route there.
		t.Skipf("nvcc runs %s even with warplink first on PATH", got)
	}
	tmp := t.TempDir()
	build := func(name, path string) ([]byte, string) {
		dir := filepath.Join(tmp, name)
		buildsysRun(t, tmp, path, "cmake", "-S", src, "-B", dir, "-DCMAKE_CUDA_ARCHITECTURES=80;90")
		out := buildsysRun(t, tmp, path, "cmake", "--build", dir, "-v")
		b, err := os.ReadFile(filepath.Join(dir, "CMakeFiles", "app.dir", "cmake_device_link.o"))
		if err != nil {
			t.Fatal(err)
		}
		return b, out
	}
	ref, refOut := build("nvlink", os.Getenv("PATH"))
	ours, ourOut := build("warplink", shimPATH)
	compareBuilds(t, ref, ours, refOut, ourOut, log)
}

// nvccNvlink is the nvlink nvcc runs with PATH set to path: nvcc -dryrun
// prints the PATH it gives its steps (nvcc.profile's folders first), and
// the first folder of it holding an nvlink wins.
func nvccNvlink(path string) string {
	cmd := exec.Command("nvcc", "-dryrun", "-arch=sm_80", "-dlink", "-o", "x.o", "x.o")
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, _ := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "#$ PATH="); ok {
			for _, dir := range filepath.SplitList(p) {
				if st, err := os.Stat(filepath.Join(dir, "nvlink")); err == nil && !st.IsDir() {
					return filepath.Join(dir, "nvlink")
				}
			}
		}
	}
	return ""
}

// clangCudaRoot returns a CUDA installation clang accepts as --cuda-path:
// WARPLINK_CUDA_PATH, else /usr/local/cuda, else one assembled in dir
// from symbolic links to Debian's nvidia-cuda-toolkit (headers in
// /usr/include, libraries in /usr/lib/x86_64-linux-gnu, libdevice in
// /usr/lib/nvidia-cuda-toolkit/libdevice, tools in /usr/bin; clang reads
// the version from include/cuda.h).
func clangCudaRoot(t *testing.T, dir string) string {
	if p := os.Getenv("WARPLINK_CUDA_PATH"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/local/cuda/include/cuda.h"); err == nil {
		return "/usr/local/cuda"
	}
	libdevice := "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"
	for _, f := range []string{"/usr/include/cuda.h", libdevice, "/usr/bin/ptxas", "/usr/bin/fatbinary", "/usr/bin/nvlink"} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("no CUDA installation for clang (%s missing; set WARPLINK_CUDA_PATH)", f)
		}
	}
	root := filepath.Join(dir, "cuda")
	for _, d := range []string{"bin", "nvvm/libdevice"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	links := map[string]string{
		"include":                        "/usr/include",
		"lib64":                          "/usr/lib/x86_64-linux-gnu",
		"nvvm/libdevice/libdevice.10.bc": libdevice,
		"bin/ptxas":                      "/usr/bin/ptxas",
		"bin/fatbinary":                  "/usr/bin/fatbinary",
		"bin/nvlink":                     "/usr/bin/nvlink",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// shadowCudaRoot makes in dir a CUDA installation that is real's but for
// bin/nvlink, which is nvlink: symbolic links to every entry of real and
// of its bin folder.
func shadowCudaRoot(t *testing.T, real, dir, nvlink string) string {
	root := filepath.Join(dir, "cuda-shadow")
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	link := func(sub string) {
		ents, err := os.ReadDir(filepath.Join(real, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if (sub == "" && e.Name() == "bin") || (sub == "bin" && e.Name() == "nvlink") {
				continue
			}
			if err := os.Symlink(filepath.Join(real, sub, e.Name()), filepath.Join(root, sub, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	link("")
	link("bin")
	if err := os.Symlink(nvlink, filepath.Join(root, "bin", "nvlink")); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestClangGPURDC compiles testdata/buildsys with clang -fgpu-rdc (the new
// offload driver, sm_80 and sm_90) and links the program twice: clang's
// clang-linker-wrapper runs clang-nvlink-wrapper, which runs
// <cuda-path>/bin/nvlink, once the installed nvlink and once warplink (a
// shadow CUDA root, shadowCudaRoot). The wrapper gets the CUDA path only
// from the linker wrapper's own --cuda-path (-Wl,--cuda-path=...; clang
// 19 does not pass the driver's on), and without it runs "/bin/nvlink"
// (the empty path's bin folder), whatever PATH says. The device code
// embedded in the two programs must be byte-identical. Skipped without
// clang (clang++-19, -18 or clang++ with clang-nvlink-wrapper beside it),
// nvlink and a CUDA installation (clangCudaRoot).
func TestClangGPURDC(t *testing.T) {
	buildsysWanted(t)
	if _, err := exec.LookPath("nvlink"); err != nil {
		t.Skip("nvlink not installed")
	}
	clang := ""
	for _, c := range []string{"clang++-19", "clang++-18", "clang++"} {
		if p, err := exec.LookPath(c); err == nil {
			p, _ = filepath.EvalSymlinks(p)
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), "clang-nvlink-wrapper")); err == nil {
				clang = p
				break
			}
		}
	}
	if clang == "" {
		t.Skip("no clang with clang-nvlink-wrapper (Debian: clang-19 and clang-tools-19)")
	}
	tmp := t.TempDir()
	cuda := clangCudaRoot(t, tmp)
	src, _ := filepath.Abs("../../testdata/buildsys")
	shim, log := nvlinkShim(t)
	shadow := shadowCudaRoot(t, cuda, tmp, filepath.Join(shim, "nvlink"))
	path := os.Getenv("PATH")
	common := []string{"--cuda-path=" + cuda, "-fgpu-rdc", "--offload-new-driver"}
	var objs []string
	for _, f := range []string{"vec", "kern", "main"} {
		args := append([]string{clang, "-x", "cuda", "--cuda-gpu-arch=sm_80", "--cuda-gpu-arch=sm_90", "-c", filepath.Join(src, f+".cu"), "-o", f + ".o"}, common...)
		buildsysRun(t, tmp, path, args...)
		objs = append(objs, f+".o")
	}
	link := func(name, root string) ([]byte, string) {
		args := append(append([]string{clang}, common...), objs...)
		args = append(args, "-Wl,--cuda-path="+root, "-L"+filepath.Join(cuda, "lib64"), "-lcudart", "-o", name)
		out := buildsysRun(t, tmp, path, args...)
		b, err := os.ReadFile(filepath.Join(tmp, name))
		if err != nil {
			t.Fatal(err)
		}
		return b, out
	}
	ref, refOut := link("app-nvlink", cuda)
	ours, ourOut := link("app-warplink", shadow)
	compareBuilds(t, ref, ours, refOut, ourOut, log)
}

// buildsysWanted skips a build-system test unless WARPLINK_BUILDSYS is set
// (make buildsys): each runs a whole CMake or clang build, tens of seconds
// that make test leaves to its own target.
func buildsysWanted(t *testing.T) {
	if os.Getenv("WARPLINK_BUILDSYS") == "" {
		t.Skip("set WARPLINK_BUILDSYS=1 (make buildsys) to build testdata/buildsys with CMake and clang")
	}
}
