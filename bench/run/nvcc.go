package main

// nvcc: a whole nvcc -dlink, as a build runs it, of the workload's host
// objects (bench/gen's, as nvcc -dc writes them): nvcc runs nvlink, then
// fatbinary and the host compiler on the result. It runs once with the
// nvlink nvcc finds and once with warplink found first under that name
// (a folder holding a link named nvlink, put first in PATH), in turn,
// -nvcc-runs times each; the outputs are compared byte for byte.

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/warplink/warplink/bench/gen"
)

// nvccRow is one size of the nvcc -dlink table.
type nvccRow struct {
	n       int
	nv, wl  []time.Duration
	outputs string
	err     string
}

// nvccDlink times nvcc -dlink of each size of c.nvccSizes with nvlink
// and with warplink.
func (rep *report) nvccDlink(c config, tmpl **gen.Templates, warplink, outDir string, log io.Writer) error {
	if len(c.nvccSizes) == 0 || warplink == "" {
		return nil
	}
	nvcc, err := exec.LookPath(c.nvcc)
	if err != nil {
		rep.notes = append(rep.notes, "nvcc not found: no nvcc -dlink table")
		return nil
	}
	// The folder that makes nvcc find warplink as nvlink.
	dir := filepath.Join(c.cache, "as-nvlink")
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.Symlink(warplink, filepath.Join(dir, "nvlink")); err != nil {
		return err
	}
	withWarplink := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
	if found := nvccNvlink(nvcc, withWarplink); found != filepath.Join(dir, "nvlink") {
		rep.notes = append(rep.notes, fmt.Sprintf("nvcc runs %s whatever PATH says (it finds nvlink beside itself): no nvcc -dlink table", found))
		return nil
	}
	for _, n := range c.nvccSizes {
		w, err := prepare(c, tmpl, n)
		if err != nil {
			return err
		}
		host, _, err := prepareForms(w)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "bench: nvcc -dlink of %d host objects, with nvlink and with warplink in turn\n", n)
		r := nvccRow{n: n, outputs: "n/a"}
		ref := filepath.Join(outDir, fmt.Sprintf("nvcc-nvlink-%d.o", n))
		ours := filepath.Join(outDir, fmt.Sprintf("nvcc-warplink-%d.o", n))
		l := c.launch.start()
		for i := 0; i < c.nvccRuns && r.err == ""; i++ {
			for _, withOurs := range []bool{i%2 == 1, i%2 == 0} {
				out, env := ref, []string(nil)
				if withOurs {
					out, env = ours, withWarplink
				}
				args := append([]string{"-arch=" + gen.Arch, "-dlink", "-o", out}, host.names...)
				os.Remove(out)
				req := launchRequest{Dir: host.dir, Bin: nvcc, Args: args, Env: env, Timeout: c.timeout}
				var res launchResult
				if l != nil {
					if res, err = l.run(req); err != nil {
						res.Err = err.Error()
					}
				} else {
					res = launch(req, os.Environ())
				}
				if res.Err != "" || res.TimedOut {
					r.err = fmt.Sprintf("%v: %s", res.Err, firstLine(strings.TrimSpace(res.Output)))
					break
				}
				if withOurs {
					r.wl = append(r.wl, res.Wall)
				} else {
					r.nv = append(r.nv, res.Wall)
				}
			}
		}
		c.launch.done(l, n)
		if r.err == "" {
			r.outputs = "different"
			if same, err := sameFile(ref, ours); err == nil && same {
				r.outputs = "identical"
			}
		}
		os.Remove(ref)
		os.Remove(ours)
		rep.nvccRows = append(rep.nvccRows, r)
	}
	return nil
}

// nvccNvlink is the nvlink nvcc runs under env (added to this process's):
// the first in the PATH nvcc -dryrun reports (which puts nvcc's own
// folder first); "" when it cannot tell.
func nvccNvlink(nvcc string, env []string) string {
	cmd := exec.Command(nvcc, "-dryrun", "-dlink", "-arch="+gen.Arch, "x.o")
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		path, ok := strings.CutPrefix(strings.TrimSpace(l), "#$ PATH=")
		if !ok {
			continue
		}
		for _, d := range filepath.SplitList(path) {
			if p := filepath.Join(d, "nvlink"); d != "" && fileExists(p) {
				return p
			}
		}
	}
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// nvccTable is the nvcc -dlink table (false when none was measured).
func (rep *report) nvccTable() (table, bool) {
	if len(rep.nvccRows) == 0 {
		return table{}, false
	}
	t := table{
		title:  "nvcc -dlink of host objects (nvlink, fatbinary, host compiler): with nvlink and with warplink in turn (median wall time)",
		header: []string{"host objects", "with nvlink", "with warplink", "warplink / nvlink", "outputs", "runs each"},
	}
	for _, r := range rep.nvccRows {
		if r.err != "" {
			t.rows = append(t.rows, []string{fmt.Sprint(r.n), "failed: " + r.err, "-", "-", "-", "-"})
			continue
		}
		nv, wl := median(slices.Clone(r.nv)), median(slices.Clone(r.wl))
		t.rows = append(t.rows, []string{fmt.Sprint(r.n), fmt.Sprintf("%.1f ms", nv.Seconds()*1e3), fmt.Sprintf("%.1f ms", wl.Seconds()*1e3),
			fmt.Sprintf("%.2f", wl.Seconds()/nv.Seconds()), r.outputs, fmt.Sprint(len(r.wl))})
	}
	return t, true
}
