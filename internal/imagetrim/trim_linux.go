//go:build linux && (amd64 || arm64)

package imagetrim

import (
	"os"
	"syscall"
)

func init() { Release() }

// pclntab returns the bounds of the executable's pclntab, the linker's
// runtime.pclntab and runtime.epclntab.
func pclntab() (lo, hi uintptr)

// Release drops the process's mappings of the whole pages of the
// pclntab: after work that walked stacks (goroutines started, stacks
// grown), which mapped some back. A failure (a kernel without
// MADV_DONTNEED) leaves them mapped.
func Release() {
	lo, hi := pageBounds()
	if lo < hi {
		syscall.RawSyscall(syscall.SYS_MADVISE, lo, hi-lo, syscall.MADV_DONTNEED)
	}
}

// pageBounds returns the whole pages within the pclntab.
func pageBounds() (lo, hi uintptr) {
	lo, hi = pclntab()
	page := uintptr(os.Getpagesize())
	return (lo + page - 1) &^ (page - 1), hi &^ (page - 1)
}
