package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/warplink/warplink/bench/gen"
)

func TestParsePhases(t *testing.T) {
	if ph, ok := parsePhases("source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n , read , 3 , o , sm_90 , warplink , 250 , ms\n"); !ok || len(ph) != 1 || ph[0].pass != "read" || ph[0].seconds != 0.25 {
		t.Errorf("nvlink-style --time rows: %v %v", ph, ok)
	}
	ph, ok := parsePhases("pass,seconds\nread,0.25\n\nresolve, 1.5\n")
	if !ok || len(ph) != 2 || ph[0] != (phase{"read", 0.25}) || ph[1] != (phase{"resolve", 1.5}) {
		t.Errorf("parsePhases = %v, %v", ph, ok)
	}
	// --time appends a header and the rows of each run: a pass's median
	// counts (the upper one of two).
	hdr := "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n"
	row := func(pass string, ms int) string {
		return fmt.Sprintf(" , %s , 3 , o , sm_90 , warplink , %d , ms\n", pass, ms)
	}
	two := hdr + row("read", 250) + hdr + row("read", 100)
	if ph, ok := parsePhases(two); !ok || len(ph) != 1 || ph[0].seconds != 0.25 {
		t.Errorf("two runs: %v %v, want one read of 0.25 s", ph, ok)
	}
	// (The header only where the file was empty, as nvlink writes it; the
	// rows of compiles, ptx and lto.*, are no passes.)
	once := hdr + "ptx , ptxas , a.o , cubin , sm_90 , nvlink , 30.5 , ms\n" + row("read", 250) + row("write", 8) + row("read", 100) + row("write", 7)
	if ph, ok := parsePhases(once); !ok || !slices.Equal(ph, []phase{{"read", 0.25}, {"write", 0.008}}) {
		t.Errorf("two runs under one header: %v %v, want read 0.25, write 0.008", ph, ok)
	}
	three := hdr + row("read", 250) + row("write", 9) + hdr + row("read", 100) + row("write", 7) + hdr + row("read", 120) + row("write", 8)
	if ph, ok := parsePhases(three); !ok || !slices.Equal(ph, []phase{{"read", 0.12}, {"write", 0.008}}) {
		t.Errorf("three runs: %v %v, want the medians read 0.12, write 0.008", ph, ok)
	}
	for _, bad := range []string{"", "a,b,c\n", "read,1\nwrite,x\n"} {
		if _, ok := parsePhases(bad); ok {
			t.Errorf("parsePhases(%q) accepted", bad)
		}
	}
}

func TestParseInts(t *testing.T) {
	got, err := parseInts(" 1000, 2000,,4000")
	if err != nil || len(got) != 3 || got[0] != 1000 || got[2] != 4000 {
		t.Errorf("parseInts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "1,x", "0", "-5"} {
		if _, err := parseInts(bad); err == nil {
			t.Errorf("parseInts(%q) accepted", bad)
		}
	}
}

// TestReport checks the speedup column, the time per object from the
// fastest and the median links, and that both renderings carry every row.
func TestReport(t *testing.T) {
	s := time.Second
	rep := &report{cpus: 2, rows: []row{
		{n: 1000, bytes: 4_300_000, nv: result{ran: true, wall: 3 * s, maxRSS: 16e6, runs: 3}, wl: result{ran: true, wall: s, maxRSS: 8e6, runs: 17, walls: []time.Duration{s, 1400 * time.Millisecond, 1200 * time.Millisecond}, rounds: []time.Duration{s, 1100 * time.Millisecond}}, outputs: "equivalent"},
		{n: 2000, bytes: 8_600_000, nv: result{ran: true, err: "timeout (2m0s)"}, wl: result{ran: true, wall: 3 * s, walls: []time.Duration{5 * s, 3 * s, 4 * s}, rounds: []time.Duration{3 * s}}},
	}}
	var txt, md bytes.Buffer
	rep.text(&txt)
	rep.markdown(&md)
	// Per object, fastest links: 1.0 and 1.5 ms; median links: 1.2 and 2.0.
	for _, want := range []string{"3.0x", "equivalent", "> 2m0s", "16 MB", "time per object (spread 1.50x; of the median links 1.67x)", "1.5000", "1.50x", "3/17", "1.2000", "2.0000", "1.000 / 1.100 s"} {
		if !strings.Contains(txt.String(), want) || !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q:\n%s\n%s", want, txt.String(), md.String())
		}
	}
	if !strings.Contains(md.String(), "| 1000 | 4.3 |") {
		t.Errorf("markdown row missing:\n%s", md.String())
	}
}

// TestAddRound checks how a later round folds into a measurement: the
// fastest link with its CPU time, the median RSS of all links, each round's
// fastest, and a failure in any round.
func TestAddRound(t *testing.T) {
	s := time.Second
	r := result{ran: true, wall: 2 * s, cpu: 3 * s, runs: 2, walls: []time.Duration{2 * s, 3 * s}, rsses: []int64{10, 30}, maxRSS: 30, rounds: []time.Duration{2 * s}}
	r.addRound(result{ran: true, wall: s, cpu: 4 * s, runs: 1, walls: []time.Duration{s}, rsses: []int64{20}, rounds: []time.Duration{s}})
	if r.wall != s || r.cpu != 4*s || r.runs != 3 || r.maxRSS != 20 || len(r.rounds) != 2 || r.rounds[1] != s || r.medianWall() != 2*s {
		t.Errorf("after a faster round: %+v", r)
	}
	r.addRound(result{ran: true, wall: 3 * s, cpu: 9 * s, runs: 1, walls: []time.Duration{3 * s}, rsses: []int64{40}})
	if r.wall != s || r.cpu != 4*s || r.maxRSS != 30 || len(r.rounds) != 3 {
		t.Errorf("after a slower round: %+v", r)
	}
	r.addRound(result{ran: true, err: "boom", runs: 1, walls: []time.Duration{5 * s}})
	if r.err != "boom" || r.runs != 5 || r.wall != s || len(r.walls) != 5 {
		t.Errorf("after a failed round: %+v", r)
	}
	r.addRound(result{})
	if r.runs != 5 {
		t.Errorf("a round that did not run counted: %+v", r)
	}
}

// TestAnother checks how many links a measurement makes: -runs at least,
// then more while they add up to less than -min-time, never more than
// maxRuns past -runs.
func TestAnother(t *testing.T) {
	c := config{runs: 3, minTime: time.Second}
	for _, tc := range []struct {
		n     int
		total time.Duration
		want  bool
	}{
		{0, 0, true},
		{2, 10 * time.Second, true}, // -runs first
		{3, 10 * time.Second, false},
		{3, 90 * time.Millisecond, true}, // short links: on
		{19, 900 * time.Millisecond, true},
		{maxRuns, 900 * time.Millisecond, false},
		{5, time.Second, false},
	} {
		if got := c.another(tc.n, tc.total); got != tc.want {
			t.Errorf("another(%d, %v) = %v, want %v", tc.n, tc.total, got, tc.want)
		}
	}
	if c := (config{runs: 25, minTime: time.Hour}); !c.another(24, 0) || c.another(25, 0) {
		t.Error("-runs above maxRuns must be made, and no more")
	}
}

// TestMedian checks the RSS a measurement reports: the middle link's, the
// upper middle of an even count, 0 for none.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []int64
		want int64
	}{
		{nil, 0},
		{[]int64{7}, 7},
		{[]int64{9, 1, 5}, 5},
		{[]int64{4, 1, 3, 2}, 3},
		{[]int64{58, 53, 53, 54, 57}, 54},
	} {
		if got := median(slices.Clone(c.in)); got != c.want {
			t.Errorf("median(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestPassScaling checks the table of pass times by GOMAXPROCS: one row per
// pass in the first link's order, a column per GOMAXPROCS and the speedup
// from the first to the last; it replaces the one-column passes table, and
// is left out when a scaling link gave no passes.
func TestPassScaling(t *testing.T) {
	rep := &report{cpus: 2, scaleN: 10000, phases: []phase{{"read", 0.03}},
		scaling: []scaleRow{
			{procs: 1, r: result{ran: true, wall: 300 * time.Millisecond}, phases: []phase{{"read", 0.04}, {"merge", 0.05}}},
			{procs: 2, r: result{ran: true, wall: 200 * time.Millisecond}, phases: []phase{{"read", 0.02}, {"merge", 0.05}}},
		}}
	tab, ok := rep.passScaling()
	if !ok {
		t.Fatal("passScaling: no table")
	}
	want := [][]string{{"read", "0.040", "0.020", "2.00x"}, {"merge", "0.050", "0.050", "1.00x"}}
	if !slices.Equal(tab.header, []string{"pass", "1", "2", "speedup 1 -> 2"}) || len(tab.rows) != len(want) {
		t.Fatalf("passScaling = %v %v", tab.header, tab.rows)
	}
	for i := range want {
		if !slices.Equal(tab.rows[i], want[i]) {
			t.Errorf("row %d = %v, want %v", i, tab.rows[i], want[i])
		}
	}
	var txt bytes.Buffer
	rep.text(&txt)
	if !strings.Contains(txt.String(), "by GOMAXPROCS") || strings.Contains(txt.String(), "warplink passes at 10000 objects (median of the links, --time)") {
		t.Errorf("report:\n%s", txt.String())
	}
	rep.scaling[1].phases = nil
	if _, ok := rep.passScaling(); ok {
		t.Error("passScaling with a link without passes: want no table")
	}
	txt.Reset()
	rep.text(&txt)
	if !strings.Contains(txt.String(), "warplink passes at 10000 objects (median of the links, --time)") {
		t.Errorf("report without pass scaling lacks the passes table:\n%s", txt.String())
	}
}

// TestIOFloor reads a small workload in parallel and reports a missing
// input as an error.
func TestIOFloor(t *testing.T) {
	dir := t.TempDir()
	w := &workload{dir: dir}
	for i := range 9 {
		name := fmt.Sprintf("o%d.cubin", i)
		if err := os.WriteFile(filepath.Join(dir, name), bytes.Repeat([]byte{byte(i)}, 3000+i), 0o644); err != nil {
			t.Fatal(err)
		}
		w.names = append(w.names, name)
	}
	if d, err := ioFloor(w); err != nil || d <= 0 {
		t.Errorf("ioFloor = %v, %v; want a positive time", d, err)
	}
	w.names = append(w.names, "missing.cubin")
	if _, err := ioFloor(w); err == nil {
		t.Error("ioFloor with a missing input: no error")
	}
}

// TestSameFile checks the streaming comparison of two outputs: equal
// files, a differing byte past the first buffer, and different lengths.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := bytes.Repeat([]byte("warplink"), 300_000) // 2.4 MB: three buffers
	other := bytes.Clone(base)
	other[len(other)-5] ^= 1
	a, b := write("a", base), write("b", bytes.Clone(base))
	c, d := write("c", other), write("d", base[:len(base)-1])
	e := write("e", nil)
	for _, tc := range []struct {
		x, y string
		want bool
	}{{a, b, true}, {a, c, false}, {a, d, false}, {d, a, false}, {e, e, true}, {e, a, false}} {
		if got, err := sameFile(tc.x, tc.y); got != tc.want || err != nil {
			t.Errorf("sameFile(%s, %s) = %v, %v; want %v", filepath.Base(tc.x), filepath.Base(tc.y), got, err, tc.want)
		}
	}
	if _, err := sameFile(a, filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file compared without an error")
	}
}

// TestForms writes the host-object and archive forms of a small generated
// workload and reads them back from the cache; links both with warplink
// (built here) as the benchmark does, beside nvlink when it is on PATH,
// and checks the forms' table.
func TestForms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds warplink")
	}
	cache := t.TempDir()
	c := config{seed: 1, cache: cache, corpus: "../../" + gen.DefaultCorpus, nvlink: "nvlink", nvlinkMax: 1000,
		timeout: time.Minute, runs: 1, rounds: 1, forms: []int{30}}
	var tmpl *gen.Templates
	w, err := prepare(c, &tmpl, 30)
	if err != nil {
		t.Fatal(err)
	}
	host, archive, err := prepareForms(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(host.names) != 30 || host.names[0] != "o000000.o" || len(archive.names) != 1 || host.bytes <= w.bytes || archive.bytes <= host.bytes {
		t.Fatalf("forms: %d host objects (%d bytes, cubins %d), archive %v (%d bytes)", len(host.names), host.bytes, w.bytes, archive.names, archive.bytes)
	}
	again, _, err := prepareForms(w) // (from the cache)
	if err != nil || again.bytes != host.bytes || len(again.names) != 30 {
		t.Fatalf("cached forms: %v, %d bytes", err, again.bytes)
	}
	warplink, err := buildWarplink(cache)
	if err != nil {
		t.Fatal(err)
	}
	nvlink, _ := exec.LookPath(c.nvlink)
	outDir := filepath.Join(cache, "out")
	os.MkdirAll(outDir, 0o755)
	rep := &report{cpus: 2}
	if err := rep.forms(c, &tmpl, nvlink, warplink, outDir, io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(rep.formRows) != 2 || rep.formRows[0].form != "host objects" || rep.formRows[1].form != "archive" {
		t.Fatalf("form rows: %+v", rep.formRows)
	}
	for _, r := range rep.formRows {
		if !r.wl.ran || r.wl.err != "" {
			t.Errorf("%s: warplink: %+v", r.form, r.wl)
		}
		if nvlink != "" && r.outputs != "identical" {
			t.Errorf("%s: outputs %q, want identical to nvlink's", r.form, r.outputs)
		}
	}
	var txt bytes.Buffer
	rep.text(&txt)
	if !strings.Contains(txt.String(), "Host objects (nvcc -dc") || !strings.Contains(txt.String(), "archive") {
		t.Errorf("report lacks the forms' table:\n%s", txt.String())
	}
}
