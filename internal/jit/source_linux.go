//go:build linux && (amd64 || arm64)

package jit

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// ptxSource holds the PTX ptxas reads: an anonymous memory file (memfd),
// passed to ptxas as its descriptor 3 and named /dev/fd/3, which it may
// open more than once (with -g it reads the PTX again for the
// .nv_debug_ptx_txt section; a pipe loses that). Nothing is left behind
// in the file system, even if warplink or ptxas dies.
func ptxSource(ptx []byte) (f *os.File, name string, cleanup func(), err error) {
	f, err = memfd("warplink-ptx")
	if err != nil {
		return tempSource(ptx)
	}
	if _, err := f.Write(ptx); err != nil {
		f.Close()
		return nil, "", nil, err
	}
	return f, "/dev/fd/3", func() { f.Close() }, nil
}

// memfd returns a new anonymous memory file named label, closed on exec
// (a child gets it only where it is passed on: ExtraFiles).
func memfd(label string) (*os.File, error) {
	l := []byte(label + "\x00")
	const cloexec = 1 // MFD_CLOEXEC
	fd, _, errno := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(&l[0])), cloexec, 0)
	if errno != 0 {
		return nil, errno
	}
	return os.NewFile(fd, "memfd:"+label), nil
}

// dieWithParent makes cmd's process get SIGKILL when warplink ends, so
// that a link killed mid-compile leaves no tool running. (The signal
// comes when the thread that started the process ends: no thread of
// warplink's ends before the process, the zygote's included, which
// unlocks its thread rather than end it.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
