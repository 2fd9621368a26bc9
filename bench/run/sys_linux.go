package main

import (
	"os"
	"strconv"
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

// closeInherited closes the descriptors past the standard three that the
// benchmark inherited, so that the links it starts begin with the
// 64-entry descriptor table make, ninja or nvcc would give them: a child's
// table covers the highest descriptor its parent holds open, and a shell
// may hold one past 63 (this development machine's passed a pipe numbered
// 251 to every command, which gave every link a table of 256 and hid what
// growing it costs: merge.batchSize). Called first in main, before the
// program opens anything of its own.
func closeInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		// (The directory's own descriptor is among them: closing it
		// after ReadDir has closed it too only fails.)
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.Close(fd)
		}
	}
}
