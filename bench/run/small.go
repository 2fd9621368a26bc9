package main

// small: the links most builds make, of a few objects, where a link's
// time is mostly its process's start and end. Each size is linked by
// nvlink and warplink in turn, -small-runs times each, from one launcher,
// so that a slow spell of the machine falls on both; the table gives the
// median of each and their ratio, and the outputs are compared.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/warplink/warplink/bench/gen"
)

// smallRow is one size of the small-link table.
type smallRow struct {
	n       int
	bytes   int64
	nv, wl  []time.Duration // every link's wall time, in the order made
	nvRSS   []int64
	wlRSS   []int64
	outputs string
	err     string // why the measurement stopped ("" when it did not)
}

// small links each size of c.small alternately with nvlink and warplink.
func (rep *report) small(c config, tmpl **gen.Templates, nvlink, warplink, outDir string, log io.Writer) error {
	if nvlink == "" || warplink == "" {
		return nil
	}
	for _, n := range c.small {
		w, err := prepare(c, tmpl, n)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "bench: %d objects: nvlink and warplink in turn, %d links each\n", n, c.smallRuns)
		r := smallRow{n: n, bytes: w.bytes, outputs: "n/a"}
		ref := filepath.Join(outDir, fmt.Sprintf("nvlink-small-%d.cubin", n))
		ours := filepath.Join(outDir, fmt.Sprintf("warplink-small-%d.cubin", n))
		l := c.launch.start()
		for i := 0; i < c.smallRuns && r.err == ""; i++ {
			// (nvlink first in odd rounds: neither always follows the other.)
			order := []bool{false, true}
			if i%2 == 1 {
				order = []bool{true, false}
			}
			for _, ours1 := range order {
				bin, out := nvlink, ref
				if ours1 {
					bin, out = warplink, ours
				}
				res := linkOnce(c, l, bin, w, out, nil)
				if res.err != "" {
					r.err = fmt.Sprintf("%s: %s", filepath.Base(bin), res.err)
					break
				}
				if ours1 {
					r.wl, r.wlRSS = append(r.wl, res.wall), append(r.wlRSS, res.maxRSS)
				} else {
					r.nv, r.nvRSS = append(r.nv, res.wall), append(r.nvRSS, res.maxRSS)
				}
			}
		}
		c.launch.done(l, n)
		if r.err == "" {
			var detail string
			if r.outputs, detail = compare(warplink, ours, ref); detail != "" {
				rep.notes = append(rep.notes, fmt.Sprintf("warplink cmp at %d objects (small links): %s", n, detail))
			}
		}
		os.Remove(ref)
		os.Remove(ours)
		rep.smallRows = append(rep.smallRows, r)
	}
	return nil
}

// smallTable is the small links' table (false when none was measured).
func (rep *report) smallTable() (table, bool) {
	if len(rep.smallRows) == 0 {
		return table{}, false
	}
	t := table{
		title:  "Small links: nvlink and warplink in turn (median wall time of each; peak RSS, median)",
		header: []string{"objects", "input KB", "nvlink", "warplink", "warplink / nvlink", "nvlink RSS", "warplink RSS", "outputs", "links each"},
	}
	ms := func(ds []time.Duration) string { return fmt.Sprintf("%.2f ms", median(slices.Clone(ds)).Seconds()*1e3) }
	mb := func(vs []int64) string { return fmt.Sprintf("%.1f MB", float64(median(slices.Clone(vs)))/1e6) }
	for _, r := range rep.smallRows {
		if r.err != "" {
			t.rows = append(t.rows, []string{fmt.Sprint(r.n), fmt.Sprintf("%.1f", float64(r.bytes)/1e3), "failed: " + r.err, "-", "-", "-", "-", "-", "-"})
			continue
		}
		ratio := median(slices.Clone(r.wl)).Seconds() / median(slices.Clone(r.nv)).Seconds()
		t.rows = append(t.rows, []string{fmt.Sprint(r.n), fmt.Sprintf("%.1f", float64(r.bytes)/1e3),
			ms(r.nv), ms(r.wl), fmt.Sprintf("%.2f", ratio), mb(r.nvRSS), mb(r.wlRSS), r.outputs, fmt.Sprint(len(r.wl))})
	}
	return t, true
}
