package main

// forms: the workload of a size linked as nvcc -dc host objects and as one
// archive of them (gen.HostObject, gen.Archive), beside nvlink, as build
// systems hand it inputs: the cubins inside fatbinaries, and static
// libraries of such objects. nvlink 11.8 links both into the bytes of its
// link of the plain cubins (bench/gen's TestNvlinkHostForms).

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/warplink/warplink/bench/gen"
)

// formRow is one size linked in one form other than plain cubins.
type formRow struct {
	n       int
	form    string // "host objects" or "archive"
	bytes   int64
	nv, wl  result
	outputs string // warplink's output against nvlink's, of this form
}

// prepareForms returns the host-object and archive forms of the cubin
// workload w, writing them under the cache first when they are not there
// (each directory's manifest last, as prepare does).
func prepareForms(w *workload) (host, archive *workload, err error) {
	host = &workload{n: w.n, dir: w.dir + "-host"}
	archive = &workload{n: w.n, dir: w.dir + "-archive", names: []string{"libbench.a"}}
	if host.cached() && archive.cached() {
		return host, archive, nil
	}
	for _, d := range []string{host.dir, archive.dir} {
		os.RemoveAll(d)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, nil, err
		}
	}
	host.names, host.bytes = nil, 0
	// (One object at a time: a child's peak RSS counts the benchmark's own
	// high-water mark, see maxRSS, so the benchmark must not hold the
	// workload.)
	af, err := os.Create(filepath.Join(archive.dir, archive.names[0]))
	if err != nil {
		return nil, nil, err
	}
	defer af.Close()
	buf := bufio.NewWriterSize(af, 1<<20)
	aw := gen.NewArchiveWriter(buf)
	for i, name := range w.names {
		cubin, err := os.ReadFile(filepath.Join(w.dir, name))
		if err != nil {
			return nil, nil, err
		}
		b := gen.HostObject(cubin, gen.ModuleID(i), 90)
		n := gen.HostObjectName(i)
		if err := os.WriteFile(filepath.Join(host.dir, n), b, 0o644); err != nil {
			return nil, nil, err
		}
		host.names = append(host.names, n)
		host.bytes += int64(len(b))
		aw.Add(n, b)
	}
	if err := aw.Err(); err != nil {
		return nil, nil, err
	}
	if err := buf.Flush(); err != nil {
		return nil, nil, err
	}
	st, err := af.Stat()
	if err != nil {
		return nil, nil, err
	}
	archive.bytes = st.Size()
	for _, fw := range []*workload{host, archive} {
		if err := fw.writeManifest(); err != nil {
			return nil, nil, err
		}
	}
	return host, archive, nil
}

// forms links each size of c.forms in both forms with nvlink (up to
// -nvlink-max) and warplink, as the main table does, one round each.
func (rep *report) forms(c config, tmpl **gen.Templates, nvlink, warplink, outDir string, log io.Writer) error {
	for _, n := range c.forms {
		w, err := prepare(c, tmpl, n)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "bench: %d objects: host-object and archive forms\n", n)
		host, archive, err := prepareForms(w)
		if err != nil {
			return err
		}
		for _, f := range []struct {
			name string
			w    *workload
		}{{"host objects", host}, {"archive", archive}} {
			r := formRow{n: n, form: f.name, bytes: f.w.bytes, outputs: "n/a"}
			tag := strings.ReplaceAll(f.name, " ", "-")
			ref := filepath.Join(outDir, fmt.Sprintf("nvlink-%d-%s.cubin", n, tag))
			ours := filepath.Join(outDir, fmt.Sprintf("warplink-%d-%s.cubin", n, tag))
			if nvlink != "" && n <= c.nvlinkMax {
				fmt.Fprintf(log, "bench: %d objects, %s: nvlink\n", n, f.name)
				r.nv = link(c, nvlink, f.w, ref, nil)
			}
			if warplink != "" {
				fmt.Fprintf(log, "bench: %d objects, %s: warplink\n", n, f.name)
				r.wl = link(c, warplink, f.w, ours, nil)
				if r.nv.ran && r.nv.err == "" && r.wl.err == "" {
					var detail string
					if r.outputs, detail = compare(warplink, ours, ref); detail != "" {
						rep.notes = append(rep.notes, fmt.Sprintf("warplink cmp at %d objects (%s): %s", n, f.name, detail))
					}
				}
			}
			os.Remove(ref)
			os.Remove(ours)
			rep.formRows = append(rep.formRows, r)
		}
	}
	return nil
}

// formsTable is the forms' table (false when none was measured).
func (rep *report) formsTable() (table, bool) {
	if len(rep.formRows) == 0 {
		return table{}, false
	}
	t := table{
		title:  "Host objects (nvcc -dc, the cubin in a fatbinary) and one archive of them: the same workloads",
		header: []string{"objects", "form", "input MB", "nvlink", "nvlink RSS", "warplink", "warplink RSS", "speedup", "outputs", "links"},
	}
	for _, r := range rep.formRows {
		speedup := "-"
		if r.nv.ran && r.wl.ran && r.nv.err == "" && r.wl.err == "" && r.wl.wall > 0 {
			speedup = fmt.Sprintf("%.1fx", r.nv.wall.Seconds()/r.wl.wall.Seconds())
		}
		t.rows = append(t.rows, []string{fmt.Sprint(r.n), r.form, fmt.Sprintf("%.1f", float64(r.bytes)/1e6),
			timeCell(r.nv), rssCell(r.nv), timeCell(r.wl), rssCell(r.wl), speedup, r.outputs,
			runsCell(r.nv) + "/" + runsCell(r.wl)})
	}
	return t, true
}
