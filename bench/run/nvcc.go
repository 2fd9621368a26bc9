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
	n              int
	nv, wl         []time.Duration // the whole nvcc -dlink
	linkNv, linkWl []time.Duration // the link alone (none: not measured)
	outputs        string
	err            string
}

// alternate runs a and b in turn, runs times each (b first in odd
// rounds), from one launcher, removing a run's output file (outs: a's,
// b's) before it; it returns the wall times of each, or why a run failed.
func alternate(c config, n, runs int, a, b launchRequest, outs [2]string) (as, bs []time.Duration, failed string) {
	l := c.launch.start()
	defer c.launch.done(l, n)
	for i := 0; i < runs; i++ {
		for _, second := range []bool{i%2 == 1, i%2 == 0} {
			req, out := a, outs[0]
			if second {
				req, out = b, outs[1]
			}
			os.Remove(out)
			var res launchResult
			if l != nil {
				var err error
				if res, err = l.run(req); err != nil {
					res.Err = err.Error()
				}
			} else {
				res = launch(req, os.Environ())
			}
			if res.Err != "" || res.TimedOut {
				return as, bs, fmt.Sprintf("%s: %v: %s", filepath.Base(req.Bin), res.Err, firstLine(strings.TrimSpace(res.Output)))
			}
			if second {
				bs = append(bs, res.Wall)
			} else {
				as = append(as, res.Wall)
			}
		}
	}
	return as, bs, ""
}

// nvccLinkArgs is the nvlink command line nvcc -dlink runs for the host
// objects of w, from nvcc -dryrun, its output file named @OUT@ and its
// --register-link-binaries option @REG@ (false when there is none).
func nvccLinkArgs(nvcc string, w *workload, scratch string) ([]string, bool) {
	cmd := exec.Command(nvcc, append([]string{"-dryrun", "-arch=" + gen.Arch, "-dlink", "-o", scratch}, w.names...)...)
	cmd.Dir = w.dir
	out, _ := cmd.CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), "#$ nvlink ")
		if !ok {
			continue
		}
		args := shellWords(rest)
		for i := 0; i < len(args); i++ {
			switch {
			case strings.HasPrefix(args[i], "--register-link-binaries="):
				args[i] = "@REG@"
			case args[i] == "-o" && i+1 < len(args):
				args[i+1] = "@OUT@"
			}
		}
		return args, slices.Contains(args, "@OUT@")
	}
	return nil, false
}

// shellWords splits a command line as nvcc -dryrun prints it: words
// separated by spaces, double quotes grouping (and dropped).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				words = append(words, w.String())
			}
			w.Reset()
			inWord = false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
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
	nvlinkPath := nvccNvlink(nvcc, nil)
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
		dlink := func(out string, env []string) launchRequest {
			args := append([]string{"-arch=" + gen.Arch, "-dlink", "-o", out}, host.names...)
			return launchRequest{Dir: host.dir, Bin: nvcc, Args: args, Env: env, Timeout: c.timeout}
		}
		r.nv, r.wl, r.err = alternate(c, n, c.nvccRuns, dlink(ref, nil), dlink(ours, withWarplink), [2]string{ref, ours})
		if r.err == "" {
			r.outputs = "different"
			if same, err := sameFile(ref, ours); err == nil && same {
				r.outputs = "identical"
			}
		}
		// The link alone: the nvlink command nvcc runs, as -dryrun prints
		// it, with files of the benchmark's own for its outputs.
		if args, ok := nvccLinkArgs(nvcc, host, filepath.Join(outDir, "reg.c")); ok && r.err == "" {
			fmt.Fprintf(log, "bench: the link nvcc -dlink runs, of %d host objects, with nvlink and with warplink in turn\n", n)
			link := func(bin, out, reg string) launchRequest {
				a := slices.Clone(args)
				for i := range a {
					switch a[i] {
					case "@OUT@":
						a[i] = out
					case "@REG@":
						a[i] = "--register-link-binaries=" + reg
					}
				}
				return launchRequest{Dir: host.dir, Bin: bin, Args: a, Timeout: c.timeout}
			}
			refReg, oursReg := ref+".reg.c", ours+".reg.c"
			var err string
			r.linkNv, r.linkWl, err = alternate(c, n, c.nvccRuns, link(nvlinkPath, ref, refReg), link(warplink, ours, oursReg), [2]string{ref, ours})
			if err == "" {
				same, _ := sameFile(ref, ours)
				sameReg, _ := sameFile(refReg, oursReg)
				if !same || !sameReg {
					r.outputs += ", the link's: different"
				}
			}
			os.Remove(refReg)
			os.Remove(oursReg)
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
		title: "nvcc -dlink of host objects (nvlink, fatbinary, host compiler): with nvlink and with warplink in turn (median wall time); " +
			"the link alone: the nvlink command nvcc runs (-lcudadevrt, --register-link-binaries), run by itself",
		header: []string{"host objects", "with nvlink", "with warplink", "warplink / nvlink", "the link alone: nvlink", "warplink", "warplink / nvlink", "outputs", "runs each"},
	}
	ms := func(ds []time.Duration) string { return fmt.Sprintf("%.1f ms", median(slices.Clone(ds)).Seconds()*1e3) }
	ratio := func(nv, wl []time.Duration) string {
		if len(nv) == 0 || len(wl) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", median(slices.Clone(wl)).Seconds()/median(slices.Clone(nv)).Seconds())
	}
	for _, r := range rep.nvccRows {
		if r.err != "" {
			t.rows = append(t.rows, []string{fmt.Sprint(r.n), "failed: " + r.err, "-", "-", "-", "-", "-", "-", "-"})
			continue
		}
		linkNv, linkWl := "-", "-"
		if len(r.linkNv) > 0 && len(r.linkWl) > 0 {
			linkNv, linkWl = ms(r.linkNv), ms(r.linkWl)
		}
		t.rows = append(t.rows, []string{fmt.Sprint(r.n), ms(r.nv), ms(r.wl), ratio(r.nv, r.wl),
			linkNv, linkWl, ratio(r.linkNv, r.linkWl), r.outputs, fmt.Sprint(len(r.wl))})
	}
	return t, true
}
