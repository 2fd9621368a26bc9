package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary the launcher when launcherEnv asks, as
// main does, and a stand-in link when BENCH_TEST_EXIT does: it prints to
// both streams and exits with the status asked for.
func TestMain(m *testing.M) {
	if os.Getenv(launcherEnv) == "1" {
		if err := serveLaunches(os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if code := os.Getenv("BENCH_TEST_EXIT"); code != "" {
		os.Stdout.WriteString("out\n")
		os.Stderr.WriteString("err " + os.Getenv("BENCH_TEST_EXTRA") + "\n")
		if code == "1" {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestServeLaunches runs the launcher's loop over in-memory streams: each
// request gets one answer in order, with the link's exit status, its
// output, its measured time and peak RSS, and the launcher's own peak.
func TestServeLaunches(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	reqs := []launchRequest{
		{Dir: t.TempDir(), Bin: self, Env: []string{"BENCH_TEST_EXIT=0", "BENCH_TEST_EXTRA=x"}, Timeout: time.Minute},
		{Dir: t.TempDir(), Bin: self, Env: []string{"BENCH_TEST_EXIT=1"}, Timeout: time.Minute},
		{Dir: t.TempDir(), Bin: self + ".missing", Timeout: time.Minute},
	}
	var in bytes.Buffer
	for _, r := range reqs {
		b, _ := json.Marshal(r)
		in.Write(append(b, '\n'))
	}
	var out bytes.Buffer
	if err := serveLaunches(&in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(reqs) {
		t.Fatalf("%d answers for %d requests", len(lines), len(reqs))
	}
	var res [3]launchResult
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &res[i]); err != nil {
			t.Fatal(err)
		}
	}
	ok := res[0]
	if ok.Exit != 0 || ok.Err != "" || ok.Wall <= 0 || ok.TimedOut ||
		!strings.Contains(ok.Output, "out\n") || !strings.Contains(ok.Output, "err x\n") {
		t.Errorf("a link that exits 0: %+v", ok)
	}
	if ok.MaxRSS <= 0 || ok.PeakSelf < 0 {
		t.Errorf("no peak RSS measured: %+v", ok)
	}
	if bad := res[1]; bad.Exit != 1 || bad.Err != "exit status 1" {
		t.Errorf("a link that exits 1: %+v", bad)
	}
	if gone := res[2]; gone.Exit != -1 || gone.Err == "" || gone.MaxRSS != 0 {
		t.Errorf("a missing binary: %+v", gone)
	}
}

// TestLauncherProcess starts launcher processes (the test binary, which
// TestMain makes one) through launchers, runs a link through each, and
// checks the note reports each size's launcher peak.
func TestLauncherProcess(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath(self); err != nil {
		t.Skip(err)
	}
	ls := &launchers{}
	for _, n := range []int{1000, 20} {
		l, err := startLauncherFrom(self)
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.run(launchRequest{Dir: t.TempDir(), Bin: self, Env: []string{"BENCH_TEST_EXIT=0"}, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if res.Exit != 0 || res.MaxRSS <= 0 {
			t.Errorf("through the launcher process: %+v", res)
		}
		if res.PeakSelf > 0 && l.peak != res.PeakSelf {
			t.Errorf("launcher peak %d, answer %d", l.peak, res.PeakSelf)
		}
		ls.done(l, n)
	}
	note := ls.note()
	if !strings.Contains(note, "launcher process per measurement") || strings.Index(note, " 20 objects") > strings.Index(note, " 1000 objects") {
		t.Errorf("note: %s", note)
	}
	var none *launchers
	if none.start() != nil || !strings.Contains(none.note(), "from the benchmark") {
		t.Errorf("a nil launchers: %q", none.note())
	}
}
