package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSmallTable checks the small links' table: the medians of each
// linker's links and their ratio, and a failed size said as such.
func TestSmallTable(t *testing.T) {
	ms := func(vs ...float64) []time.Duration {
		var out []time.Duration
		for _, v := range vs {
			out = append(out, time.Duration(v*float64(time.Millisecond)))
		}
		return out
	}
	rep := &report{smallRows: []smallRow{
		{n: 3, bytes: 12300, nv: ms(2, 1, 9), wl: ms(3, 1.5, 1), nvRSS: []int64{3e6, 4e6, 5e6}, wlRSS: []int64{4e6, 4e6, 4e6}, outputs: "identical"},
		{n: 10, err: "warplink: exit status 1"},
		{n: 1, bytes: 5500, nv: ms(1), wl: ms(1), nvRSS: []int64{3.5e6}, wlRSS: []int64{1.9e6}, floor: 2e6, outputs: "identical"},
	}}
	tb, ok := rep.smallTable()
	if !ok || len(tb.rows) != 3 {
		t.Fatalf("table %v %v", tb, ok)
	}
	if got := strings.Join(tb.rows[0], "|"); got != "3|12.3|2.00 ms|1.50 ms|0.75|4.0 MB|4.0 MB|identical|3" {
		t.Errorf("row %s", got)
	}
	if !strings.Contains(tb.rows[1][2], "failed") {
		t.Errorf("failed row %v", tb.rows[1])
	}
	// (A figure at rssprobe's own peak is marked as at most that.)
	if got := strings.Join(tb.rows[2][5:7], "|"); got != "3.5 MB|≤2.0 MB" || !strings.Contains(tb.title, "rssprobe") {
		t.Errorf("row %s, title %q", got, tb.title)
	}
	if _, ok := (&report{}).smallTable(); ok {
		t.Error("a table without rows")
	}
}

// TestNvccNvlink checks which nvlink nvcc would run: the first folder of
// the PATH its -dryrun prints that holds one.
func TestNvccNvlink(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{first, second} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(second, "nvlink"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	nvcc := filepath.Join(dir, "nvcc")
	script := "#!/bin/sh\necho '#$ _NVVM_BRANCH_=nvvm'\necho \"#\\$ PATH=" + first + ":$EXTRA:" + second + "\"\n"
	if err := os.WriteFile(nvcc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := nvccNvlink(nvcc, nil); got != filepath.Join(second, "nvlink") {
		t.Errorf("nvlink %q, want the second folder's", got)
	}
	if err := os.WriteFile(filepath.Join(first, "nvlink"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := nvccNvlink(nvcc, nil); got != filepath.Join(first, "nvlink") {
		t.Errorf("nvlink %q, want the first folder's", got)
	}
	if got := nvccNvlink(filepath.Join(dir, "missing"), nil); got != "" {
		t.Errorf("no nvcc: %q", got)
	}
}

// TestWriteFloor checks the floor's write part: it takes some time, and
// leaves nothing behind.
func TestWriteFloor(t *testing.T) {
	dir := t.TempDir()
	d, err := writeFloor(dir, 3<<20+5)
	if err != nil || d <= 0 {
		t.Fatalf("writeFloor: %v %v", d, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files", len(ents))
	}
}

// TestNvccLinkArgs checks the nvlink command line taken from nvcc -dryrun:
// words, quotes dropped, the output and the registration file marked.
func TestNvccLinkArgs(t *testing.T) {
	dir := t.TempDir()
	nvcc := filepath.Join(dir, "nvcc")
	line := `#$ nvlink -m64 --arch=sm_90 --register-link-binaries="/tmp/x_dl.reg.c"    -L/usr/lib/stubs "o000000.o" "o 1.o"  -lcudadevrt  -o "/tmp/x_dl.sm_90.cubin" --host-ccbin "gcc"`
	script := "#!/bin/sh\necho '#$ PATH=/bin'\necho '" + line + "'\necho '#$ fatbinary -64'\n"
	if err := os.WriteFile(nvcc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args, ok := nvccLinkArgs(nvcc, &workload{dir: dir, names: []string{"o000000.o"}}, filepath.Join(dir, "x.o"))
	want := []string{"-m64", "--arch=sm_90", "@REG@", "-L/usr/lib/stubs", "o000000.o", "o 1.o", "-lcudadevrt", "-o", "@OUT@", "--host-ccbin", "gcc"}
	if !ok || strings.Join(args, "|") != strings.Join(want, "|") {
		t.Errorf("args %q %v, want %q", args, ok, want)
	}
	if _, ok := nvccLinkArgs(filepath.Join(dir, "missing"), &workload{dir: dir}, "x.o"); ok {
		t.Error("no nvcc: a command line")
	}
}
