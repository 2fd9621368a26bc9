package hugemem

import "syscall"

// madvHugepage is MADV_HUGEPAGE and madvCollapse MADV_COLLAPSE (Linux
// 6.1; not in package syscall).
const (
	madvHugepage = 14
	madvCollapse = 25
)

// mapAnon maps size bytes of private anonymous memory, reserved lazily
// (pages are only committed when touched), and asks for huge pages for
// its bytes from small to huge.
func mapAnon(size, small, huge int) ([]byte, bool) {
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	// Advice only: a kernel without transparent huge pages (or with them
	// off) keeps small pages and the memory is as good.
	if huge = min(huge, len(m)); small < huge {
		_ = syscall.Madvise(m[small:huge], madvHugepage)
	}
	return m, true
}

// mapZeros maps size bytes of read-only private anonymous memory: every
// read finds zeros (the kernel's shared zero page, which counts in no
// process's resident set), and a write faults.
func mapZeros(size int) ([]byte, bool) {
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return nil, false
	}
	return m, true
}

func unmap(m []byte) { _ = syscall.Munmap(m) }
