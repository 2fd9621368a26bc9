package main

// small: the links most builds make, of a few objects, where a link's
// time is mostly its process's start and end. Each size is linked by
// nvlink and warplink in turn, -small-runs times each, from one launcher,
// so that a slow spell of the machine falls on both; the table gives the
// median of each and their ratio, and the outputs are compared. Their
// peak RSS is measured apart, by links started by rssprobe (probe.go).

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/warplink/warplink/bench/gen"
)

// smallRow is one size of the small-link table.
type smallRow struct {
	n       int
	bytes   int64
	nv, wl  []time.Duration // every link's wall time, in the order made
	nvRSS   []int64         // peak RSS of the rssprobe links, or of the timed ones without it
	wlRSS   []int64
	floor   int64 // rssprobe's largest own peak, under every RSS figure (0: the launcher's)
	outputs string
	err     string // why the measurement stopped ("" when it did not)
}

// small links each size of c.small alternately with nvlink and warplink.
func (rep *report) small(c config, tmpl **gen.Templates, nvlink, warplink, outDir string, log io.Writer) error {
	if nvlink == "" || warplink == "" || len(c.small) == 0 {
		return nil
	}
	probe, err := buildProbe(c.cache)
	if err != nil {
		rep.notes = append(rep.notes, "small links' peak RSS from their launcher, whose peak floors it: "+err.Error())
	}
	var floors []string
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
			for _, ours1 := range inTurn(i) {
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
		if r.err == "" && probe != "" {
			r.probeRSS(c, probe, nvlink, warplink, w, ref, ours)
			floors = append(floors, fmt.Sprintf(" %d objects %.1f MB", n, float64(r.floor)/1e6))
		}
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
	if len(floors) > 0 {
		rep.notes = append(rep.notes, fmt.Sprintf("small links' peak RSS: %d links of each in turn, each started by rssprobe,"+
			" whose own peak no figure can be under (\"≤\": a figure at it):%s", min(c.smallRuns, smallRSSRuns), strings.Join(floors, ",")))
	}
	return nil
}

// inTurn is the order of the two linkers in round i, true for warplink:
// nvlink first in odd rounds, so that neither always follows the other.
func inTurn(i int) []bool {
	if i%2 == 1 {
		return []bool{true, false}
	}
	return []bool{false, true}
}

// probeRSS replaces r's peak RSS figures with those of links started by
// rssprobe (probe.go), alternating as the timed links do.
func (r *smallRow) probeRSS(c config, probe, nvlink, warplink string, w *workload, ref, ours string) {
	r.nvRSS, r.wlRSS = nil, nil
	for i := 0; i < min(c.smallRuns, smallRSSRuns) && r.err == ""; i++ {
		for _, ours1 := range inTurn(i) {
			bin, out := nvlink, ref
			if ours1 {
				bin, out = warplink, ours
			}
			rss, own, err := probeLink(c, probe, bin, w, out, nil)
			if err != nil {
				r.err = fmt.Sprintf("%s (peak RSS link): %v", filepath.Base(bin), err)
				return
			}
			r.floor = max(r.floor, own)
			if ours1 {
				r.wlRSS = append(r.wlRSS, rss)
			} else {
				r.nvRSS = append(r.nvRSS, rss)
			}
		}
	}
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
	if slices.ContainsFunc(rep.smallRows, func(r smallRow) bool { return r.floor > 0 }) {
		t.title = strings.TrimSuffix(t.title, ")") + " of links started by rssprobe)"
	}
	ms := func(ds []time.Duration) string { return fmt.Sprintf("%.2f ms", median(slices.Clone(ds)).Seconds()*1e3) }
	for _, r := range rep.smallRows {
		// (A figure at rssprobe's peak says only that the link's is at most that.)
		mb := func(vs []int64) string {
			v := median(slices.Clone(vs))
			if r.floor > 0 && v <= r.floor {
				return fmt.Sprintf("≤%.1f MB", float64(r.floor)/1e6)
			}
			return fmt.Sprintf("%.1f MB", float64(v)/1e6)
		}
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
