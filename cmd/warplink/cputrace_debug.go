//go:build cputrace

package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
)

// init has passDone print a CPU line to standard error as each pass ends
// (after the collection that follows it, if any): the pass, the
// milliseconds since init, the wall and the CPU milliseconds (user and
// system, every thread) since the previous line, and the idle core time
// in them (GOMAXPROCS times the wall, less the CPU): where a link leaves
// cores unused. Not with -tags memtrace (both set memTrace).
func init() {
	start := time.Now()
	lastWall, lastCPU := time.Duration(0), processCPU()
	memTrace = func(pass string) {
		wall, cpu := time.Since(start), processCPU()
		w, c := wall-lastWall, cpu-lastCPU
		idle := time.Duration(runtime.GOMAXPROCS(0))*w - c
		fmt.Fprintf(os.Stderr, "CPU %s at %.2f wall %.2f cpu %.2f idle %.2f\n", pass, ms(wall), ms(w), ms(c), ms(idle))
		lastWall, lastCPU = wall, cpu
	}
}

// processCPU is the CPU time the process has used, every thread.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
