package main

import (
	"os"
	"syscall"
)

// maxRSS returns the peak resident set size of a finished process in bytes
// (Linux reports ru_maxrss in KiB). It is at least the benchmark's own
// peak at the time of the fork: Linux keeps the old address space's
// high-water mark across exec (docs/performance.md), so the benchmark
// must not grow past the links it measures.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024 // (int32 on 386)
	}
	return 0
}

// raiseStackLimit lifts the soft stack limit, which Linux uses to bound the
// size of a child's argument list (a quarter of it): a 100,000-object link
// passes about 2 MB of arguments, more than the usual 8 MB limit allows.
func raiseStackLimit() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_STACK, &lim) != nil {
		return
	}
	const want = 256 << 20
	if lim.Cur < want {
		lim.Cur = min(want, lim.Max)
		syscall.Setrlimit(syscall.RLIMIT_STACK, &lim)
	}
}
