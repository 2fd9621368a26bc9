//go:build linux && amd64

package jit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A ptxas process spends most of a small compile (some 23 of 30 ms of CPU
// for the bench's PTX) on its own setup before it opens its input, the
// same for every input of the same arguments. A zygote runs that setup
// once: it starts ptxas traced (ptrace), stops it as it is about to open
// /dev/fd/3 (its input), and for each compile makes it fork there; the
// child gets its own PTX (fd 3), cubin pipe (fd 1) and message pipe (fd
// 2), then goes on as a ptxas started afresh would from that point, so
// the cubin and messages are the same. The child is forked with
// CLONE_PARENT: it is warplink's child, waited for as any other. Where
// any step fails (no ptrace, no /proc, a ptxas that does something else
// first) the zygote is given up and ptxas runs as a process of its own.
//
// All ptrace requests come from the one thread that traces (Go's ptrace
// rule): the zygote's goroutine, locked to its thread, serves forks on a
// channel.

// x86-64 system calls and flags the zygote uses.
const (
	sysOpenat      = 257
	sysClone       = 56
	sysCloseRange  = 436
	sysClose       = 3
	sysPrctl       = 157
	prSetPdeathsig = 1
	cloneParent    = 0x8000
	atFDCWD        = -100
	enosys         = 38
	syscallLen     = 2          // the syscall instruction's length
	traceSysGood   = 0x80       // PTRACE_O_TRACESYSGOOD's stop signal bit
	eventFork      = 1          // PTRACE_EVENT_FORK
	waitAll        = 0x40000000 // __WALL
	// zygoteStops bounds the system calls ptxas may make before it opens
	// its input.
	zygoteStops = 2000
	// templateTimeout bounds a template's setup (some 30 ms).
	templateTimeout = 20 * time.Second
	// zygoteInput is the input file name a zygote's ptxas is given.
	zygoteInput = "/dev/fd/3"
)

// zygote is one link's zygote server (nil: none).
type zygote struct {
	mu     sync.Mutex // held by a fork and by close
	closed bool
	reqs   chan zygoteReq
	// timeout bounds a template's setup (templateTimeout; a test's
	// shorter).
	timeout time.Duration
	done    chan struct{}
}

// zygoteReq asks for a ptxas child of the template for args, with fds as
// its descriptors 3, 1 and 2.
type zygoteReq struct {
	path  string
	args  []string
	fds   [3]*os.File
	reply chan zygoteReply
}

type zygoteReply struct {
	pid int
	pre [2][]byte // (template.pre)
	err error
}

// template is a ptxas stopped at the entry of its openat of its input.
type template struct {
	pid  int
	regs syscall.PtraceRegs // at that stop
	// pre is what it wrote to its stdout and stderr before it (option
	// warnings): each child's output starts with it.
	pre [2][]byte
	// atClone: it is stopped at the exit of the clone of its last fork,
	// not at its openat.
	atClone bool
	err     error // could not be made (nil pid)
}

// newZygote starts the zygote server.
func newZygote() *zygote {
	z := &zygote{reqs: make(chan zygoteReq), done: make(chan struct{}), timeout: templateTimeout}
	go z.serve()
	return z
}

// close ends the server and its templates (z may be nil).
func (z *zygote) close() {
	if z == nil {
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if !z.closed {
		z.closed = true
		close(z.reqs)
		<-z.done
	}
}

// fork returns the pid of a ptxas child of the template for args with
// PTX file ptx and pipes out and msgs, and what the template wrote to its
// stdout and stderr; the child runs on its own.
func (z *zygote) fork(path string, args []string, ptx, out, msgs *os.File) (int, [2][]byte, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.closed {
		return 0, [2][]byte{}, errors.New("zygote closed")
	}
	r := zygoteReq{path, args, [3]*os.File{ptx, out, msgs}, make(chan zygoteReply, 1)}
	z.reqs <- r
	rep := <-r.reply
	return rep.pid, rep.pre, rep.err
}

func (z *zygote) serve() {
	// The thread is unlocked, not ended, once every template is ended
	// and reaped (no process is traced from it any more): a thread's end
	// sends the parent-death signal to the processes it started, the
	// children forked under way included (dieWithParent).
	runtime.LockOSThread()
	defer close(z.done)
	temps := map[string]*template{}
	defer func() {
		for _, t := range temps {
			if t.pid != 0 {
				end(t.pid, nil)
			}
		}
		runtime.UnlockOSThread()
	}()
	for r := range z.reqs {
		key := r.path + "\x00" + strings.Join(r.args, "\x00")
		t := temps[key]
		if t == nil {
			t = startTemplate(r.path, r.args, z.timeout)
			temps[key] = t
		}
		if t.err != nil {
			r.reply <- zygoteReply{err: t.err}
			continue
		}
		pid, terr, cerr := t.fork(r.fds)
		if terr != nil || cerr != nil {
			// A template in an unknown state, or whose child could not
			// be set up, is given up; a child that was set up runs all
			// the same.
			end(t.pid, terr)
			t.pid, t.err = 0, errors.Join(terr, cerr)
		}
		r.reply <- zygoteReply{pid, t.pre, cerr}
	}
}

// startTemplate starts ptxas with args traced and runs it to its openat
// of its input, killed if that takes longer than timeout.
func startTemplate(path string, args []string, timeout time.Duration) *template {
	var outs [2]*os.File
	for i := range outs {
		f, err := memfd("warplink-ptxas-out")
		if err != nil {
			return &template{err: err}
		}
		defer f.Close()
		outs[i] = f
	}
	cmd := exec.Command(path, append(args[:len(args):len(args)], zygoteInput, "-o", "/dev/stdout")...)
	cmd.Env = childEnv(os.Environ())
	cmd.Stdout, cmd.Stderr = outs[0], outs[1]
	// A descriptor 3 holds the place of the input, so that what ptxas
	// opens in its setup is numbered as in a ptxas started afresh (from
	// 4), never 3, which each child's setup replaces.
	hold, err := memfd("warplink-ptx")
	if err != nil {
		return &template{err: err}
	}
	defer hold.Close()
	cmd.ExtraFiles = []*os.File{hold}
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return &template{err: err}
	}
	t := &template{pid: cmd.Process.Pid}
	// A ptxas that has not reached its input in timeout is
	// killed: its next wait reports the end, and the link goes on
	// without a template. (Process.Kill signals through a pidfd, so a
	// timer that fires once the process is reaped kills nothing.)
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	defer timer.Stop()
	fail := func(err error) *template {
		timer.Stop()
		end(t.pid, err)
		return &template{err: fmt.Errorf("ptxas template: %v", err)}
	}
	if _, err := waitStop(t.pid); err != nil {
		return fail(err)
	}
	// (Forks are traced from the stop on: a child ptxas made before it,
	// as a wrapper script's, runs untraced, not stopped for good.)
	opts := syscall.PTRACE_O_TRACESYSGOOD | 0x100000 // PTRACE_O_EXITKILL
	if err := syscall.PtraceSetOptions(t.pid, opts); err != nil {
		return fail(err)
	}
	for range zygoteStops {
		regs, err := t.nextSyscall()
		if err != nil {
			return fail(err)
		}
		if regs.Orig_rax == sysOpenat && int64(regs.Rax) == -enosys && peekString(t.pid, uintptr(regs.Rsi), len(zygoteInput)+1) == zygoteInput {
			t.regs = regs
			// (fork copies the one thread: a ptxas with threads
			// running by then cannot be a template.)
			if tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", t.pid)); err != nil || len(tasks) != 1 {
				return fail(fmt.Errorf("not one thread (%d, %v)", len(tasks), err))
			}
			if err := syscall.PtraceSetOptions(t.pid, opts|syscall.PTRACE_O_TRACEFORK); err != nil {
				return fail(err)
			}
			for i, f := range outs {
				if t.pre[i], err = io.ReadAll(io.NewSectionReader(f, 0, 1<<40)); err != nil {
					return fail(err)
				}
			}
			return t
		}
	}
	return fail(errors.New("ptxas did not open its input"))
}

// nextSyscall resumes pid to its next system call stop (entry or exit).
func (t *template) nextSyscall() (syscall.PtraceRegs, error) {
	var regs syscall.PtraceRegs
	if err := syscall.PtraceSyscall(t.pid, 0); err != nil {
		return regs, err
	}
	sig, err := waitStop(t.pid)
	if err != nil {
		return regs, err
	}
	if sig != syscall.SIGTRAP|traceSysGood {
		return regs, fmt.Errorf("stopped by %v", sig)
	}
	err = syscall.PtraceGetRegs(t.pid, &regs)
	return regs, err
}

// endedError is waitStop's error when the process ended (and was
// reaped: its pid is no longer its).
type endedError struct{ ws syscall.WaitStatus }

func (e endedError) Error() string { return fmt.Sprintf("ptxas ended (%v)", e.ws) }

// end kills and reaps pid, unless err says it is reaped already.
func end(pid int, err error) {
	if !errors.As(err, new(endedError)) {
		syscall.Kill(pid, syscall.SIGKILL)
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, waitAll, nil)
	}
}

// waitStop waits for pid's next stop and returns its signal (the stop
// signal, with the event in the bits above as ptrace reports it).
func waitStop(pid int) (syscall.Signal, error) {
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, waitAll, nil); err != nil {
		return 0, err
	}
	if !ws.Stopped() {
		return 0, endedError{ws}
	}
	return syscall.Signal(ws>>8) & 0xffff, nil // (signal, event<<8)
}

// peekString reads a NUL-terminated string of at most n bytes at addr.
func peekString(pid int, addr uintptr, n int) string {
	b := make([]byte, n)
	if k, err := syscall.PtracePeekData(pid, addr, b); err != nil || k != n {
		return ""
	}
	s, _, ok := strings.Cut(string(b), "\x00")
	if !ok {
		return ""
	}
	return s
}

// fork makes the template fork a child: at the entry of its openat (the
// first time) the call is turned into a clone, at the exit of its last
// clone the syscall instruction is run again as a clone. The child's
// descriptors 1, 2, 3 are set to fds, and it goes on with the openat.
// terr is the template's failure, cerr the child's (a child is returned
// only without cerr).
func (t *template) fork(fds [3]*os.File) (child int, terr, cerr error) {
	r := t.regs
	if t.atClone {
		r.Rip -= syscallLen
		r.Rax, r.Orig_rax = sysClone, ^uint64(0)
	} else {
		r.Orig_rax = sysClone
	}
	r.Rdi, r.Rsi, r.Rdx, r.R10, r.R8 = cloneParent|uint64(syscall.SIGCHLD), 0, 0, 0, 0
	if err := syscall.PtraceSetRegs(t.pid, &r); err != nil {
		return 0, err, err
	}
	if err := syscall.PtraceCont(t.pid, 0); err != nil {
		return 0, err, err
	}
	if sig, err := waitStop(t.pid); err != nil {
		return 0, err, err
	} else if sig != syscall.SIGTRAP|eventFork<<8 {
		err := fmt.Errorf("clone: stopped by %v", sig)
		return 0, err, err
	}
	msg, err := syscall.PtraceGetEventMsg(t.pid)
	if err != nil {
		return 0, err, err
	}
	child = int(msg)
	_, terr = t.nextSyscall() // (to the clone's exit)
	t.atClone = true
	if cerr = setUpChild(child, t.regs, fds); cerr != nil {
		end(child, cerr)
		return 0, terr, cerr
	}
	return child, terr, nil
}

// setUpChild gives the new child (stopped as it starts) its descriptors
// and lets it run on from the openat with the template's registers at
// (base).
func setUpChild(pid int, base syscall.PtraceRegs, fds [3]*os.File) error {
	if sig, err := waitStop(pid); err != nil {
		return err
	} else if sig != syscall.SIGSTOP {
		return fmt.Errorf("child: stopped by %v", sig)
	}
	// A fork does not inherit the parent-death signal: the child gets
	// the template's, SIGKILL when the zygote's thread (its parent,
	// through CLONE_PARENT) ends, so that a link killed mid-compile
	// leaves no ptxas running. (That thread is alive: it traces the
	// child now.)
	if _, err := inject(pid, base, sysPrctl, prSetPdeathsig, uint64(syscall.SIGKILL), 0); err != nil {
		return err
	}
	// Descriptors 1 to 3 are closed, then the /proc path of each file,
	// written below the child's stack pointer (past the red zone), is
	// opened in the order 1, 2, 3: an open takes the lowest free
	// descriptor (0 is the template's /dev/null).
	if _, err := inject(pid, base, sysCloseRange, 1, 3, 0); err != nil {
		for fd := uint64(1); fd <= 3; fd++ { // (a kernel without close_range)
			inject(pid, base, sysClose, fd, 0, 0)
		}
	}
	buf := uintptr(base.Rsp-1024) &^ 15
	var paths []byte
	var at [3]uintptr
	for i, f := range [3]*os.File{fds[1], fds[2], fds[0]} {
		at[i] = buf + uintptr(len(paths))
		paths = fmt.Appendf(paths, "/proc/%d/fd/%d\x00", os.Getpid(), f.Fd())
	}
	if _, err := syscall.PtracePokeData(pid, buf, paths); err != nil {
		return err
	}
	cwd := int64(atFDCWD)
	for i, mode := range [3]uint64{syscall.O_WRONLY, syscall.O_WRONLY, syscall.O_RDONLY} {
		fd, err := inject(pid, base, sysOpenat, uint64(cwd), uint64(at[i]), mode)
		if err != nil {
			return err
		}
		if fd != i+1 {
			return fmt.Errorf("child: opened descriptor %d, want %d", fd, i+1)
		}
	}
	r := base
	r.Rip -= syscallLen
	r.Rax = sysOpenat
	r.Orig_rax = ^uint64(0)
	if err := syscall.PtraceSetRegs(pid, &r); err != nil {
		return err
	}
	return syscall.PtraceDetach(pid)
}

// inject makes the stopped pid run system call nr(a, b, c) at the
// syscall instruction before base.Rip and returns its result.
func inject(pid int, base syscall.PtraceRegs, nr, a, b, c uint64) (int, error) {
	r := base
	r.Rip -= syscallLen
	r.Rax, r.Orig_rax = nr, ^uint64(0)
	r.Rdi, r.Rsi, r.Rdx = a, b, c
	if err := syscall.PtraceSetRegs(pid, &r); err != nil {
		return 0, err
	}
	for range 2 { // entry, exit
		if err := syscall.PtraceSyscall(pid, 0); err != nil {
			return 0, err
		}
		if sig, err := waitStop(pid); err != nil {
			return 0, err
		} else if sig != syscall.SIGTRAP|traceSysGood {
			return 0, fmt.Errorf("system call %d: stopped by %v", nr, sig)
		}
	}
	if err := syscall.PtraceGetRegs(pid, &r); err != nil {
		return 0, err
	}
	if res := int64(r.Rax); res < 0 {
		return 0, fmt.Errorf("system call %d: %v", nr, syscall.Errno(-res))
	}
	return int(r.Rax), nil
}

// waitChild waits for the zygote's child pid to end and returns an error
// worded as os/exec's if it failed.
func waitChild(pid int) error {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	switch {
	case ws.Exited() && ws.ExitStatus() == 0:
		return nil
	case ws.Exited():
		return fmt.Errorf("exit status %d", ws.ExitStatus())
	case ws.Signaled() && ws.CoreDump():
		return fmt.Errorf("signal: %v (core dumped)", ws.Signal())
	default:
		return fmt.Errorf("signal: %v", ws.Signal())
	}
}
