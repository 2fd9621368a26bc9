package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// nvlinkJob is one run of a real nvlink: its arguments, run in folder dir.
type nvlinkJob struct {
	dir  string
	args []string
}

// nvlinkRun is what one nvlinkJob did: the exit status and what nvlink
// printed (standard output and error together, in order).
type nvlinkRun struct {
	rc  int
	out string
}

// runNvlinkBatch runs the nvlink at path on every job, one after another,
// from one shell script, and returns what each did, by job. Beside a
// cuda12-run (the CUDA 12 wrapper of /opt/cuda12/bin, which starts every
// tool in a mount namespace and chroot of its own: about 20 ms of CPU a
// start, ten times the link of a corpus program) the whole script runs
// in one such namespace, where nvlink is the wrapper's tool of the same
// name. A job's output files are its own (given in its arguments).
func runNvlinkBatch(t *testing.T, path string, jobs []nvlinkJob) []nvlinkRun {
	tmp := t.TempDir()
	var script strings.Builder
	tool := shellQuote(path)
	run := exec.Command("/bin/sh", filepath.Join(tmp, "batch.sh"))
	if wrapper := filepath.Join(filepath.Dir(path), "cuda12-run"); isExecutable(wrapper) {
		tool = shellQuote(filepath.Base(path))
		run = exec.Command(wrapper, "/bin/sh", filepath.Join(tmp, "batch.sh"))
		// The wrapper keeps /tmp, /work, /home and /root; these too.
		binds := map[string]bool{topFolder(tmp): true}
		for _, j := range jobs {
			dir, _ := filepath.Abs(j.dir)
			binds[topFolder(dir)] = true
		}
		extra := os.Getenv("CUDA12_BINDS")
		for b := range binds {
			extra += " " + b
		}
		run.Env = append(os.Environ(), "CUDA12_BINDS="+strings.TrimSpace(extra))
	}
	for k, j := range jobs {
		var args []string
		for _, a := range j.args {
			args = append(args, shellQuote(a))
		}
		fmt.Fprintf(&script, "(cd %s && exec %s %s) >%s 2>&1; echo $? >%s\n", shellQuote(j.dir), tool, strings.Join(args, " "),
			shellQuote(filepath.Join(tmp, strconv.Itoa(k)+".log")), shellQuote(filepath.Join(tmp, strconv.Itoa(k)+".rc")))
	}
	if err := os.WriteFile(filepath.Join(tmp, "batch.sh"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run.Dir = tmp
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("running %s's batch: %v\n%s", path, err, out)
	}
	runs := make([]nvlinkRun, len(jobs))
	for k := range jobs {
		rc, err := os.ReadFile(filepath.Join(tmp, strconv.Itoa(k)+".rc"))
		if err != nil {
			t.Fatalf("%s: job %d did not run: %v", path, k, err)
		}
		log, _ := os.ReadFile(filepath.Join(tmp, strconv.Itoa(k)+".log"))
		runs[k].rc, err = strconv.Atoi(strings.TrimSpace(string(rc)))
		if err != nil {
			t.Fatalf("%s: job %d: exit status %q", path, k, rc)
		}
		runs[k].out = string(log)
	}
	return runs
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// topFolder is the first folder of absolute path p ("/work" of
// "/work/a/b").
func topFolder(p string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	return "/" + first
}

// isExecutable reports whether p is an executable file.
func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}
