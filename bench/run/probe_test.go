package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestProbeLink runs the test binary as a stand-in link through a built
// rssprobe while the test holds 64 MB: the link's figure is its own, not
// floored by its starter's peak, rssprobe's own peak is a few MB, and a
// failing or missing link is an error.
func TestProbeLink(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("rssprobe is Linux's")
	}
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	probe, err := buildProbe(dir)
	if err != nil {
		t.Skip(err)
	}
	held := make([]byte, 64<<20)
	for i := range held {
		held[i] = 1
	}
	c := config{timeout: time.Minute}
	w := &workload{dir: dir, names: []string{"a.cubin"}}
	out := filepath.Join(dir, "out.cubin")
	rss, own, err := probeLink(c, probe, self, w, out, []string{"BENCH_TEST_EXIT=0"})
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || rss > 32<<20 || own <= 0 || own > 8<<20 {
		t.Errorf("link peak %d, rssprobe's %d, with 64 MB held by the test", rss, own)
	}
	if _, _, err := probeLink(c, probe, self, w, out, []string{"BENCH_TEST_EXIT=1"}); err == nil || !strings.Contains(err.Error(), "exit status 1") {
		t.Errorf("a failing link: %v", err)
	}
	if _, _, err := probeLink(c, probe, self+".missing", w, out, nil); err == nil {
		t.Error("a missing link: no error")
	}
	runtime.KeepAlive(held)
}
