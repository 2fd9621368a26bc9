package main

// The small links' peak RSS, measured apart. A link of a few objects
// peaks at 2.7-4.5 MB, less than a launcher does once it has run a
// size's hundreds of links (8-9 MB: its heap's garbage, os/exec's copy
// buffers; 2.9 MB before the first, the benchmark's binary idle), and a
// link's figure is at least its starter's peak (launcher.go). So after
// the timed links, which the launcher runs as before, each size is
// linked smallRSSRuns more times by each linker in turn, each link
// started by a fresh rssprobe (bench/run/rssprobe), a Go program of
// syscalls alone whose own peak, about 2 MB, is all that floors these
// figures; the timed links' start-to-exit path is untouched.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/warplink/warplink/bench/gen"
	"github.com/warplink/warplink/internal/testkit/gobuild"
)

// smallRSSRuns is how many links of each linker at each small size
// measure peak RSS (fewer when -small-runs is smaller).
const smallRSSRuns = 11

// buildProbe compiles rssprobe into the cache directory.
func buildProbe(cache string) (string, error) {
	bin := filepath.Join(cache, "rssprobe")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/warplink/warplink/bench/run/rssprobe")
	cmd.Env = gobuild.Env("go") // (static: a dynamic loader would raise its peak)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./bench/run/rssprobe: %v: %s", err, firstLine(strings.TrimSpace(string(out))))
	}
	return bin, nil
}

// probeLink links w with bin into out, started by the rssprobe probe,
// and returns the link's peak RSS and the probe's own, in bytes.
func probeLink(c config, probe, bin string, w *workload, out string, env []string) (maxRSS, own int64, err error) {
	var in bytes.Buffer
	for _, a := range append([]string{w.dir, bin, "-arch=" + gen.Arch, "-o", out}, w.names...) {
		in.WriteString(a)
		in.WriteByte(0)
	}
	os.Remove(out)
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, probe) // (killing it kills the link: Pdeathsig)
	cmd.Stdin = &in
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if ctx.Err() != nil {
		return 0, 0, fmt.Errorf("timeout (%v)", c.timeout)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("rssprobe: %v: %s", err, firstLine(strings.TrimSpace(stderr.String())))
	}
	bad := fmt.Errorf("rssprobe: bad answer %q", b)
	f := strings.Fields(string(b)) // MAXRSS EXIT PEAK
	if len(f) != 3 {
		return 0, 0, bad
	}
	var v [3]int64
	for i := range v {
		if v[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			return 0, 0, bad
		}
	}
	if v[1] != 0 {
		return 0, 0, fmt.Errorf("exit status %d", v[1])
	}
	return v[0], v[2], nil
}
