package gobuild

import (
	"os/exec"
	"slices"
	"testing"
)

// TestEnv checks that the build environment turns cgo off and asks for
// the experiment exactly when the toolchain knows it (and GOEXPERIMENT is
// not set), and that go accepts the result.
func TestEnv(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	t.Setenv("GOEXPERIMENT", "")
	env := Env(goTool)
	if !slices.Contains(env, "CGO_ENABLED=0") {
		t.Errorf("no CGO_ENABLED=0 in %v", env[len(env)-2:])
	}
	check := exec.Command(goTool, "env", "GOEXPERIMENT")
	check.Env = env
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("go env with Env's environment: %v: %s", err, out)
	}
	t.Setenv("GOEXPERIMENT", "nosuchexperiment")
	if env := Env(goTool); slices.Contains(env, Experiment) {
		t.Errorf("Env overrides a set GOEXPERIMENT")
	}
}
