package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/warplink/warplink/internal/testkit/gobuild"
)

// built is cmd/warplink and cmd/warplink-nvvm built once per run, for
// the tests that run the binaries, in a folder of their own beside an
// "nvlink" link to warplink (so that, run under that name, it prints its
// diagnostics as nvlink does; a folder to put first on PATH for nvcc).
var built struct {
	once     sync.Once
	dir, log string
	err      error
}

// TestMain removes the binaries' folder once the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// warplinkBin returns the folder of the built warplink, nvlink and
// warplink-nvvm, building them on the first call (one go build, as make
// build does: CGO_ENABLED=0, GOEXPERIMENT=nogreenteagc); it fails the
// test if the build fails.
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
		cmd := exec.Command(goTool, "build", "-o", built.dir+string(filepath.Separator),
			"github.com/warplink/warplink/cmd/warplink", "github.com/warplink/warplink/cmd/warplink-nvvm",
			"github.com/warplink/warplink/internal/testkit/ptxascache")
		cmd.Env = gobuild.Env(goTool) // (as make build: see the Makefile)
		if out, err := cmd.CombinedOutput(); err != nil {
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
