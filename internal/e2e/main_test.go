package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// built is cmd/warplink built once for the tests that run the binary, in
// a folder of its own beside an "nvlink" link to it (so that, run under
// that name, it prints its diagnostics as nvlink does; a folder to put
// first on PATH for nvcc).
var built struct {
	once     sync.Once
	dir, log string
	err      error
}

// TestMain removes the binary's folder once the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// warplinkBin returns the folder of the built warplink and nvlink, building
// them on the first call; it fails the test if the build fails.
func warplinkBin(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		if built.dir, built.err = os.MkdirTemp("", "warplink-e2e-"); built.err != nil {
			return
		}
		out, err := exec.Command(goTool, "build", "-o", filepath.Join(built.dir, "warplink"), "github.com/warplink/warplink/cmd/warplink").CombinedOutput()
		if err != nil {
			built.log, built.err = string(out), err
			return
		}
		built.err = os.Symlink("warplink", filepath.Join(built.dir, "nvlink"))
	})
	if built.err != nil {
		t.Fatalf("building warplink: %v\n%s", built.err, built.log)
	}
	return built.dir
}
