package main

// The launcher: every measured link is started by a small process of the
// benchmark's own, so that what the link's peak RSS reports is the link's.
//
// Linux records the old address space's high-water mark in a process's
// ru_maxrss when it calls exec, and a child started the vfork way (as
// os/exec starts them) shares its parent's address space until then: a
// link's figure is at least the peak RSS of the process that started it.
// The benchmark itself grows as it generates workloads, the more so on
// many cores (on the 16-core GPU machine its own peak reached 56 MB while
// generating 1,000 objects, and every link then reported at least that:
// warplink 56 MB where it took 26-28, nvlink 26 where it took 18). The
// launcher is the benchmark's binary started first, before any of that,
// with launcherEnv set: it reads one request per line on its stdin, runs
// the link and answers with its wall time, CPU time, peak RSS and exit
// status, and so stays a few megabytes (its own peak is printed with the
// tables: no link can report less).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
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
	Started  bool
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

// launcher is the benchmark's side of a launcher process.
type launcher struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	peak int64 // the launcher's peak RSS, from its last answer
}

// startLauncher starts the benchmark's binary as a launcher. Call it
// first, while the benchmark is small.
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
	l.mu.Lock()
	defer l.mu.Unlock()
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
		res.Started = true
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
