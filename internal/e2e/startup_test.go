package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStackGrowFirst checks that internal/stackgrow is initialized before
// the standard library's packages that grew the main goroutine's stack
// (internal/godebug) or run at every start (os, syscall): its init grows
// the stack in one copy only while the stack is still shallow.
func TestStackGrowFirst(t *testing.T) {
	cmd := exec.Command(filepath.Join(warplinkBin(t), "warplink"), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("warplink --version: %v\n%s", err, out)
	}
	order := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			if _, ok := order[f[1]]; !ok {
				order[f[1]] = i
			}
		}
	}
	first, ok := order["github.com/warplink/warplink/internal/stackgrow"]
	if !ok {
		t.Fatalf("no initialization of internal/stackgrow in\n%s", out)
	}
	for _, pkg := range []string{"internal/godebug", "syscall", "os"} {
		if i, ok := order[pkg]; ok && i < first {
			t.Errorf("%s is initialized before internal/stackgrow", pkg)
		}
	}
}
