//go:build linux && (amd64 || arm64)

package jit

import (
	"os"
	"syscall"
	"unsafe"
)

// ptxSource holds the PTX ptxas reads: an anonymous memory file (memfd),
// passed to ptxas as its descriptor 3 and named /dev/fd/3, which it may
// open more than once (with -g it reads the PTX again for the
// .nv_debug_ptx_txt section; a pipe loses that). Nothing is left behind
// in the file system, even if warplink or ptxas dies.
func ptxSource(ptx []byte) (f *os.File, name string, cleanup func(), err error) {
	label := []byte("warplink-ptx\x00")
	fd, _, errno := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(&label[0])), 0, 0)
	if errno != 0 {
		return tempSource(ptx)
	}
	f = os.NewFile(fd, "memfd:warplink-ptx")
	if _, err := f.Write(ptx); err != nil {
		f.Close()
		return nil, "", nil, err
	}
	return f, "/dev/fd/3", func() { f.Close() }, nil
}
