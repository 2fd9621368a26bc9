//go:build linux

// Command rssprobe runs one command and prints its peak RSS, from a
// process whose own peak is as low as a Go program's can be.
//
// Linux records the high-water mark of the address space a process
// leaves at exec in that process's ru_maxrss, and a child started the
// vfork way (as Go starts every child) leaves its parent's: a command's
// figure is at least its starter's peak. The benchmark's launcher
// (bench/run/launcher.go) peaks at 3-9 MB, more than a link of a few
// objects takes (2.7-4.5 MB), so the small links' peak RSS is measured
// apart, each link started by a fresh rssprobe: its peak, about 2 MB, is
// all that floors the figure. It imports syscall, strconv and time only,
// allocates little and never collects, so that nothing of the benchmark's
// or of a garbage collection reaches the address space the command leaves.
// (A timer of its own, through package time, would add 0.1 MB: the time
// limit is its starter's, who kills rssprobe, and the command with it.)
//
// Input (stdin): NUL-terminated strings: the folder to run in, the
// command, its arguments. The command gets rssprobe's environment,
// /dev/null for its standard streams, and SIGKILL when rssprobe ends.
// Output (stdout): "MAXRSS EXIT PEAK\n": the command's peak RSS in bytes,
// its exit status (-1: killed by a signal) and rssprobe's own peak RSS
// in bytes (0: unknown) after the command ended.
package main

import (
	"strconv"
	"syscall"
)

func main() {
	if err := run(); err != "" {
		syscall.Write(2, []byte("rssprobe: "+err+"\n"))
		syscall.Exit(2)
	}
}

// run reads the request, runs the command and prints its figures; it
// returns why it could not ("" when it did).
func run() string {
	var buf [64 << 10]byte // (requests of a few hundred objects' names)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(0, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return "stdin: " + err.Error()
		}
		if m == 0 {
			break
		}
		n += m
	}
	var f []string
	for s, i := 0, 0; i < n; i++ {
		if buf[i] == 0 {
			f = append(f, string(buf[s:i]))
			s = i + 1
		}
	}
	if len(f) < 2 {
		return "short request"
	}
	null, err := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "/dev/null: " + err.Error()
	}
	fd := uintptr(null)
	attr := &syscall.ProcAttr{Dir: f[0], Env: syscall.Environ(), Files: []uintptr{fd, fd, fd},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	pid, err := syscall.ForkExec(f[1], f[1:], attr)
	if err != nil {
		return f[1] + ": " + err.Error()
	}
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return "wait: " + err.Error()
	}
	exit := -1
	if ws.Exited() {
		exit = ws.ExitStatus()
	}
	out := strconv.FormatInt(int64(ru.Maxrss)*1024, 10) + " " + strconv.Itoa(exit) + " " + strconv.FormatInt(peak(buf[:]), 10) + "\n"
	syscall.Write(1, []byte(out))
	return ""
}

// peak is this process's peak RSS in bytes (VmHWM), 0 where unknown; buf
// is scratch space.
func peak(buf []byte) int64 {
	fd, err := syscall.Open("/proc/self/status", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer syscall.Close(fd)
	n, _ := syscall.Read(fd, buf)
	const key = "\nVmHWM:"
	for i := 0; i+len(key) <= n; i++ {
		if string(buf[i:i+len(key)]) != key {
			continue
		}
		var kb int64
		for j := i + len(key); j < n && buf[j] != 'k'; j++ {
			if c := buf[j]; c >= '0' && c <= '9' {
				kb = kb*10 + int64(c-'0')
			}
		}
		return kb << 10
	}
	return 0
}
