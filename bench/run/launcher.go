package main

// The launchers: every measurement's links are started by a small process
// of the benchmark's own, so that what a link's peak RSS reports is the
// link's.
//
// Linux records the old address space's high-water mark in a process's
// ru_maxrss when it calls exec, and a child started the vfork way (as
// os/exec starts them) shares its parent's address space until then: a
// link's figure is at least the peak RSS of the process that started it.
// The benchmark grows as it generates workloads, the more so on many
// cores: on the 16-core GPU machine its own peak reached 56 MB while it
// generated 1,000 objects, and every link then reported at least that
// (warplink 56 MB where it took 26-28, nvlink 26 where it took 18). A
// launcher is the benchmark's binary run with launcherEnv set: a fresh
// address space, whatever the benchmark's. It reads one request per line
// on its stdin, runs the link and answers with its wall time, CPU time,
// peak RSS and exit status. Each measurement (link) starts one and ends
// it, so that a launcher's own peak, which the requests of a 100,000-
// object link's arguments raise, never floors a smaller link's figure;
// the peaks are printed with the tables (launchers.note). A link of a few
// objects peaks under any launcher's peak: the small links' peak RSS is
// measured apart (probe.go).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// launcherEnv, set to 1, makes the benchmark's binary serve as the launcher.
const launcherEnv = "WARPLINK_BENCH_LAUNCHER"

// launchRequest is one link for the launcher to run.
type launchRequest struct {
	Dir     string
	Bin     string
	Args    []string
	Env     []string // added to the launcher's environment
	Timeout time.Duration
}

// launchResult is what the launcher measured.
type launchResult struct {
	Wall     time.Duration
	CPU      time.Duration // user + system
	MaxRSS   int64         // bytes
	Exit     int           // -1: killed or not started
	TimedOut bool
	Err      string // why it did not start or did not exit 0
	Output   string // its stdout and stderr, the first maxOutput bytes
	PeakSelf int64  // the launcher's own peak RSS in bytes (0: unknown)
}

// maxOutput bounds the output a launch result carries back.
const maxOutput = 64 << 10

// launchers starts the launchers and keeps their peaks. Safe for
// concurrent use; nil runs every link from the benchmark itself.
type launchers struct {
	mu    sync.Mutex
	err   error         // why a launcher failed to start (then none is tried again)
	peaks map[int]int64 // the largest launcher peak RSS by workload size
}

// start returns a new launcher, or nil where none can be started (the
// links then run from the benchmark: see note).
func (ls *launchers) start() *launcher {
	if ls == nil {
		return nil
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.err != nil {
		return nil
	}
	l, err := startLauncher()
	if err != nil {
		ls.err = err
		return nil
	}
	return l
}

// done ends l, a launcher of links of n objects, and keeps its peak.
func (ls *launchers) done(l *launcher, n int) {
	if l == nil {
		return
	}
	l.close()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.peaks == nil {
		ls.peaks = map[int]int64{}
	}
	ls.peaks[n] = max(ls.peaks[n], l.peak)
}

// note says how the links were started, for the report's notes.
func (ls *launchers) note() string {
	if ls == nil {
		return "links started from the benchmark, whose own peak RSS every link's figure then counts"
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.err != nil {
		return "no launcher (" + ls.err.Error() + "): links started from the benchmark, whose own peak RSS every link's figure then counts"
	}
	sizes := slices.Sorted(maps.Keys(ls.peaks))
	var b strings.Builder
	b.WriteString("links started from a launcher process per measurement; launcher peak RSS (no figure of a link it started can be lower; the small links' is measured apart):")
	for i, n := range sizes {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d objects %.1f MB", n, float64(ls.peaks[n])/1e6)
	}
	return b.String()
}

// launcher is the benchmark's side of a launcher process; one
// measurement's links use it in turn, never at once.
type launcher struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	peak int64 // the launcher's peak RSS, from its last answer
}

// startLauncher starts the benchmark's binary as a launcher.
func startLauncher() (*launcher, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return startLauncherFrom(self)
}

// startLauncherFrom starts bin, a binary whose main serves launches when
// launcherEnv is set, as a launcher.
func startLauncherFrom(bin string) (*launcher, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), launcherEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &launcher{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// run has the launcher run one link.
func (l *launcher) run(req launchRequest) (launchResult, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return launchResult{}, err
	}
	if _, err := l.in.Write(append(b, '\n')); err != nil {
		return launchResult{}, fmt.Errorf("launcher: %v", err)
	}
	line, err := l.out.ReadBytes('\n')
	if err != nil {
		return launchResult{}, fmt.Errorf("launcher: %v", err)
	}
	var res launchResult
	if err := json.Unmarshal(line, &res); err != nil {
		return launchResult{}, fmt.Errorf("launcher: %v", err)
	}
	l.peak = max(l.peak, res.PeakSelf)
	return res, nil
}

// close ends the launcher.
func (l *launcher) close() {
	l.in.Close()
	l.cmd.Wait()
}

// serveLaunches is the launcher's loop: one request per line of in, one
// answer per line of out, until in ends.
func serveLaunches(in io.Reader, out io.Writer) error {
	runtime.GOMAXPROCS(1) // (its Go runtime needs no more; its children get the environment's)
	r := bufio.NewReader(in)
	env := os.Environ()
	for i := 0; i < len(env); i++ {
		if strings.HasPrefix(env[i], launcherEnv+"=") {
			env = append(env[:i], env[i+1:]...)
			i--
		}
	}
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		var req launchRequest
		if err := json.Unmarshal(line, &req); err != nil {
			return err
		}
		res := launch(req, env)
		res.PeakSelf = selfPeakRSS()
		b, err := json.Marshal(res)
		if err != nil {
			return err
		}
		if _, err := out.Write(append(b, '\n')); err != nil {
			return err
		}
	}
}

// launch runs one link and measures it.
func launch(req launchRequest, env []string) launchResult {
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, req.Bin, req.Args...)
	cmd.Dir = req.Dir
	cmd.Env = append(env[:len(env):len(env)], req.Env...)
	var output bytes.Buffer
	cmd.Stdout = &capped{b: &output}
	cmd.Stderr = cmd.Stdout
	start := time.Now()
	err := cmd.Run()
	res := launchResult{Wall: time.Since(start), Exit: -1, Output: output.String()}
	if cmd.ProcessState != nil {
		res.MaxRSS = maxRSS(cmd.ProcessState)
		res.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		res.Exit = cmd.ProcessState.ExitCode()
	}
	res.TimedOut = ctx.Err() != nil
	if err != nil {
		res.Err = err.Error()
	}
	return res
}

// capped keeps the first maxOutput bytes written to it.
type capped struct{ b *bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// selfPeakRSS is this process's peak RSS in bytes (VmHWM), 0 where unknown.
func selfPeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
