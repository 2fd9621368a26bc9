package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/warplink/warplink/bench/gen"
)

// report is everything one benchmark run measured.
type report struct {
	cpus      int
	nvlink    string // nvlink version line, "" when not run
	notes     []string
	rows      []row
	scaleN    int
	scaling   []scaleRow
	phases    []phase
	phasesRaw string // --time output that is not pass,seconds
	formRows  []formRow
	smallRows []smallRow
	nvccRows  []nvccRow
}

type row struct {
	n       int
	bytes   int64
	io      time.Duration // reading every input once (ioFloor)
	write   time.Duration // writing the output once (writeFloor; 0: not measured)
	nv, wl  result
	outputs string
}

type scaleRow struct {
	procs  int
	r      result
	phases []phase // each pass's median time over the links (nil when unreadable)
}

// bench measures every size of c and returns the report; progress goes to
// log.
func bench(c config, log io.Writer) (*report, error) {
	rep := &report{cpus: runtime.NumCPU()}
	if err := os.MkdirAll(c.cache, 0o755); err != nil {
		return nil, err
	}
	outDir := filepath.Join(c.cache, "out")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	nvlink, err := exec.LookPath(c.nvlink)
	if err != nil {
		rep.notes = append(rep.notes, "nvlink not found: nvlink columns are empty")
		nvlink = ""
	} else if v, err := exec.Command(nvlink, "--version").Output(); err == nil {
		for _, l := range strings.Split(string(v), "\n") {
			if strings.Contains(l, "release") {
				rep.nvlink = strings.TrimSpace(l)
			}
		}
	}
	warplink := c.warplink
	if warplink == "" {
		fmt.Fprintln(log, "bench: building ./cmd/warplink")
		if warplink, err = buildWarplink(c.cache); err != nil {
			rep.notes = append(rep.notes, "warplink not built: "+err.Error())
			warplink = ""
		}
	}

	var tmpl *gen.Templates
	if err := rep.small(c, &tmpl, nvlink, warplink, outDir, log); err != nil {
		return nil, err
	}
	if err := rep.nvccDlink(c, &tmpl, warplink, outDir, log); err != nil {
		return nil, err
	}
	for _, n := range c.sizes {
		fmt.Fprintf(log, "bench: %d objects: generating\n", n)
		w, err := prepare(c, &tmpl, n)
		if err != nil {
			return nil, err
		}
		r := row{n: n, bytes: w.bytes, outputs: "n/a"}
		if r.io, err = ioFloor(w); err != nil {
			return nil, err
		}
		ref := filepath.Join(outDir, fmt.Sprintf("nvlink-%d.cubin", n))
		ours := filepath.Join(outDir, fmt.Sprintf("warplink-%d.cubin", n))
		if nvlink != "" && n <= c.nvlinkMax {
			fmt.Fprintf(log, "bench: %d objects: nvlink\n", n)
			r.nv = link(c, nvlink, w, ref, nil)
		}
		if warplink != "" {
			fmt.Fprintf(log, "bench: %d objects: warplink\n", n)
			r.wl = timedLink(c, warplink, w, ours, nil)
			if st, err := os.Stat(ours); err == nil && r.wl.err == "" {
				if r.write, err = writeFloor(outDir, st.Size()); err != nil {
					return nil, err
				}
			}
			if r.nv.ran && r.nv.err == "" && r.wl.err == "" {
				var detail string
				if r.outputs, detail = compare(warplink, ours, ref); detail != "" {
					rep.notes = append(rep.notes, fmt.Sprintf("warplink cmp at %d objects: %s", n, detail))
				}
			}
		}
		rep.rows = append(rep.rows, r)
	}
	if warplink != "" {
		for round := 2; round <= c.rounds; round++ {
			if err := rep.round(c, &tmpl, warplink, outDir, round, log); err != nil {
				return nil, err
			}
		}
	}
	if err := rep.forms(c, &tmpl, nvlink, warplink, outDir, log); err != nil {
		return nil, err
	}

	last := rep.rows[len(rep.rows)-1]
	if warplink == "" || !last.wl.ran {
		return rep, nil
	}
	if ph, ok := parsePhases(last.wl.timeCSV); ok {
		rep.phases = ph
	} else {
		rep.phasesRaw = last.wl.timeCSV
	}
	rep.scaleN = last.n
	w, err := prepare(c, &tmpl, last.n)
	if err != nil {
		return nil, err
	}
	for _, p := range c.procs {
		fmt.Fprintf(log, "bench: %d objects: warplink, GOMAXPROCS=%d\n", last.n, p)
		out := filepath.Join(outDir, fmt.Sprintf("warplink-%d-p%d.cubin", last.n, p))
		row := scaleRow{procs: p, r: timedLink(c, warplink, w, out, []string{fmt.Sprintf("GOMAXPROCS=%d", p)})}
		row.phases, _ = parsePhases(row.r.timeCSV)
		rep.scaling = append(rep.scaling, row)
	}
	return rep, nil
}

// round links every size with warplink once more (a measurement as in the
// first round, without --time), folds the result into its row and checks
// that the output is byte-identical to the first round's.
func (rep *report) round(c config, tmpl **gen.Templates, warplink, outDir string, round int, log io.Writer) error {
	for i := range rep.rows {
		r := &rep.rows[i]
		if !r.wl.ran || r.wl.err != "" {
			continue
		}
		w, err := prepare(c, tmpl, r.n)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "bench: %d objects: warplink, round %d of %d\n", r.n, round, c.rounds)
		first := filepath.Join(outDir, fmt.Sprintf("warplink-%d.cubin", r.n))
		out := filepath.Join(outDir, fmt.Sprintf("warplink-%d-round.cubin", r.n))
		o := link(c, warplink, w, out, nil)
		if o.err == "" {
			if same, err := sameFile(first, out); err != nil || !same {
				rep.notes = append(rep.notes, fmt.Sprintf("warplink at %d objects: round %d's output differs from the first round's (%v)", r.n, round, err))
				r.outputs = "differs across rounds"
			}
		}
		os.Remove(out)
		r.wl.addRound(o)
	}
	return nil
}

// sameFile reports whether the files at a and b hold the same bytes. It
// reads them through two small buffers: a link's peak RSS (ru_maxrss)
// counts its parent's high-water mark too (see maxRSS), so the
// benchmark must stay small.
func sameFile(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	x, y := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		n, errA := io.ReadFull(fa, x)
		m, errB := io.ReadFull(fb, y)
		if n != m || !bytes.Equal(x[:n], y[:m]) {
			return false, nil
		}
		if errA == io.EOF || errA == io.ErrUnexpectedEOF {
			return errB == io.EOF || errB == io.ErrUnexpectedEOF, nil
		}
		if errA != nil {
			return false, errA
		}
		if errB != nil {
			return false, errB
		}
	}
}

// timedLink is link with --time into a file beside out, whose rows (one
// set per link) it keeps in the result's timeCSV.
func timedLink(c config, warplink string, w *workload, out string, env []string) result {
	timeFile := strings.TrimSuffix(out, ".cubin") + ".time.csv"
	os.Remove(timeFile)
	r := link(c, warplink, w, out, env, "--time", timeFile)
	if b, err := os.ReadFile(timeFile); err == nil {
		r.timeCSV = string(b)
	}
	return r
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// table is a report section: a title, a header and rows of cells.
type table struct {
	title  string
	header []string
	rows   [][]string
}

// runsCell is how many links a measurement made ("-" when it did not run).
func runsCell(r result) string {
	if !r.ran {
		return "-"
	}
	return fmt.Sprint(r.runs)
}

func (rep *report) tables() []table {
	main := table{
		title: fmt.Sprintf("Link wall time (fastest link), CPU time (user+sys) and peak RSS (median of the links; %d CPUs); "+
			"the floor is reading every input once plus writing the output once", rep.cpus),
		header: []string{"objects", "input MB", "floor: read", "write", "floor", "nvlink", "nvlink CPU", "nvlink RSS", "warplink", "warplink CPU", "warplink RSS",
			"warplink / floor", "RSS / input", "speedup", "outputs", "links"},
	}
	for _, r := range rep.rows {
		speedup, overFloor, rssPerInput := "-", "-", "-"
		if r.nv.ran && r.wl.ran && r.nv.err == "" && r.wl.err == "" && r.wl.wall > 0 {
			speedup = fmt.Sprintf("%.1fx", r.nv.wall.Seconds()/r.wl.wall.Seconds())
		}
		floor := r.io + r.write
		if r.wl.ran && r.wl.err == "" && r.write > 0 {
			overFloor = fmt.Sprintf("%.2f", r.wl.wall.Seconds()/floor.Seconds())
		}
		if r.wl.ran && r.wl.err == "" && r.wl.maxRSS > 0 && r.bytes > 0 {
			rssPerInput = fmt.Sprintf("%.2f", float64(r.wl.maxRSS)/float64(r.bytes))
		}
		main.rows = append(main.rows, []string{
			fmt.Sprint(r.n), fmt.Sprintf("%.1f", float64(r.bytes)/1e6), ms3(r.io), ms3(r.write), ms3(floor),
			timeCell(r.nv), cpuCell(r.nv), rssCell(r.nv), timeCell(r.wl), cpuCell(r.wl), rssCell(r.wl), overFloor, rssPerInput, speedup, r.outputs,
			runsCell(r.nv) + "/" + runsCell(r.wl),
		})
	}
	var out []table
	if t, ok := rep.smallTable(); ok {
		out = append(out, t)
	}
	if t, ok := rep.nvccTable(); ok {
		out = append(out, t)
	}
	out = append(out, main)
	if t, ok := rep.perObject(); ok {
		out = append(out, t)
	}
	if len(rep.scaling) > 0 {
		t := table{
			title:  fmt.Sprintf("warplink scaling at %d objects", rep.scaleN),
			header: []string{"GOMAXPROCS", "time", "CPU", "peak RSS", "speedup"},
		}
		base := rep.scaling[0].r
		for _, s := range rep.scaling {
			sp := "-"
			if s.r.err == "" && base.err == "" && s.r.wall > 0 {
				sp = fmt.Sprintf("%.2fx", base.wall.Seconds()/s.r.wall.Seconds())
			}
			t.rows = append(t.rows, []string{fmt.Sprint(s.procs), timeCell(s.r), cpuCell(s.r), rssCell(s.r), sp})
		}
		out = append(out, t)
	}
	if t, ok := rep.passScaling(); ok {
		out = append(out, t)
	} else if len(rep.phases) > 0 {
		t := table{title: fmt.Sprintf("warplink passes at %d objects (median of the links, --time)", rep.scaleN), header: []string{"pass", "seconds"}}
		for _, p := range rep.phases {
			t.rows = append(t.rows, []string{p.pass, fmt.Sprintf("%.3f", p.seconds)})
		}
		out = append(out, t)
	}
	if t, ok := rep.formsTable(); ok {
		out = append(out, t)
	}
	return out
}

// passScaling is the time of each pass under each GOMAXPROCS of the
// scaling run, and its speedup from the first to the last: a pass that
// does not speed up is serial. It reports false unless every scaling link
// gave its passes.
func (rep *report) passScaling() (table, bool) {
	if len(rep.scaling) < 2 {
		return table{}, false
	}
	t := table{
		title:  fmt.Sprintf("warplink passes at %d objects by GOMAXPROCS (seconds, median of each measurement's links, --time)", rep.scaleN),
		header: []string{"pass"},
	}
	times := make([]map[string]float64, len(rep.scaling))
	for i, s := range rep.scaling {
		if len(s.phases) == 0 {
			return table{}, false
		}
		t.header = append(t.header, fmt.Sprint(s.procs))
		times[i] = map[string]float64{}
		for _, p := range s.phases {
			times[i][p.pass] += p.seconds
		}
	}
	first, last := rep.scaling[0].procs, rep.scaling[len(rep.scaling)-1].procs
	t.header = append(t.header, fmt.Sprintf("speedup %d -> %d", first, last))
	seen := map[string]bool{}
	for _, p := range rep.scaling[0].phases {
		if seen[p.pass] {
			continue
		}
		seen[p.pass] = true
		cells := []string{p.pass}
		for i := range rep.scaling {
			v, ok := times[i][p.pass]
			if !ok {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.3f", v))
		}
		sp := "-"
		if a, b := times[0][p.pass], times[len(times)-1][p.pass]; a > 0 && b > 0 {
			sp = fmt.Sprintf("%.2fx", a/b)
		}
		t.rows = append(t.rows, append(cells, sp))
	}
	return t, true
}

// perObject is warplink's wall time per object at each size, against the
// fastest size's (the issue asks for a spread within 1.5x): from the
// fastest link of each size, and from the median link, with each round's
// fastest link (a slow spell of the machine shows as one slow round).
func (rep *report) perObject() (table, bool) {
	per := map[int][2]float64{}        // ms per object: fastest link, median link
	medians := map[int]time.Duration{} // the median link
	var fastest [2]float64
	for _, r := range rep.rows {
		if r.wl.ran && r.wl.err == "" && r.n > 0 && r.wl.wall > 0 {
			medians[r.n] = r.wl.medianWall()
			ms := [2]float64{r.wl.wall.Seconds() * 1000 / float64(r.n), medians[r.n].Seconds() * 1000 / float64(r.n)}
			per[r.n] = ms
			for i := range ms {
				if fastest[i] == 0 || ms[i] < fastest[i] {
					fastest[i] = ms[i]
				}
			}
		}
	}
	if len(per) < 2 {
		return table{}, false
	}
	t := table{title: "warplink time per object", header: []string{"objects", "fastest link", "ms per object", "against the fastest", "median link", "ms per object", "against the fastest", "each round's fastest"}}
	var worst [2]float64
	for _, r := range rep.rows {
		ms, ok := per[r.n]
		if !ok {
			continue
		}
		rounds := make([]string, len(r.wl.rounds))
		for i, d := range r.wl.rounds {
			rounds[i] = fmt.Sprintf("%.3f", d.Seconds())
		}
		t.rows = append(t.rows, []string{fmt.Sprint(r.n),
			fmt.Sprintf("%.3f s", r.wl.wall.Seconds()), fmt.Sprintf("%.4f", ms[0]), fmt.Sprintf("%.2fx", ms[0]/fastest[0]),
			fmt.Sprintf("%.3f s", medians[r.n].Seconds()), fmt.Sprintf("%.4f", ms[1]), fmt.Sprintf("%.2fx", ms[1]/fastest[1]),
			strings.Join(rounds, " / ") + " s"})
		for i := range ms {
			worst[i] = max(worst[i], ms[i]/fastest[i])
		}
	}
	t.title += fmt.Sprintf(" (spread %.2fx; of the median links %.2fx)", worst[0], worst[1])
	return t, true
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// ms3 is d in seconds to the millisecond.
func ms3(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func timeCell(r result) string {
	switch {
	case !r.ran:
		return "-"
	case r.err != "":
		if strings.HasPrefix(r.err, "timeout") {
			return "> " + strings.TrimSuffix(strings.TrimPrefix(r.err, "timeout ("), ")")
		}
		return "failed"
	}
	return secs(r.wall)
}

func cpuCell(r result) string {
	if !r.ran || r.cpu == 0 {
		return "-"
	}
	return secs(r.cpu)
}

func rssCell(r result) string {
	if !r.ran || r.maxRSS == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MB", float64(r.maxRSS)/1e6)
}

// failures lists the links that did not succeed, for the notes.
func (rep *report) failures() []string {
	var out []string
	for _, r := range rep.rows {
		if r.nv.ran && r.nv.err != "" {
			out = append(out, fmt.Sprintf("nvlink, %d objects: %s", r.n, r.nv.err))
		}
		if r.wl.ran && r.wl.err != "" {
			out = append(out, fmt.Sprintf("warplink, %d objects: %s", r.n, r.wl.err))
		}
	}
	return out
}

func (rep *report) header() []string {
	h := []string{fmt.Sprintf("%s/%s, %d CPUs, workload generator v%d", runtime.GOOS, runtime.GOARCH, rep.cpus, genVersion)}
	if rep.nvlink != "" {
		h = append(h, "nvlink: "+rep.nvlink)
	}
	h = append(h, rep.notes...)
	return append(h, rep.failures()...)
}

// text prints the report as aligned plain-text tables.
func (rep *report) text(w io.Writer) {
	for _, l := range rep.header() {
		fmt.Fprintln(w, l)
	}
	for _, t := range rep.tables() {
		fmt.Fprintf(w, "\n%s\n", t.title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(t.header, "\t")+"\t")
		for _, r := range t.rows {
			fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
		}
		tw.Flush()
	}
	if rep.phasesRaw != "" {
		fmt.Fprintf(w, "\nwarplink --time output at %d objects:\n%s", rep.scaleN, rep.phasesRaw)
	}
}

// markdown prints the report as Markdown tables.
func (rep *report) markdown(w io.Writer) {
	for _, l := range rep.header() {
		fmt.Fprintf(w, "- %s\n", l)
	}
	for _, t := range rep.tables() {
		fmt.Fprintf(w, "\n**%s**\n\n", t.title)
		fmt.Fprintf(w, "| %s |\n|", strings.Join(t.header, " | "))
		for range t.header {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
		for _, r := range t.rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
	}
	if rep.phasesRaw != "" {
		fmt.Fprintf(w, "\nwarplink `--time` output at %d objects:\n\n```\n%s```\n", rep.scaleN, rep.phasesRaw)
	}
}
