//go:build pprof

package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// init samples every 4 KiB allocated when WARPLINK_MEMPROFILE is set
// (before any allocation of the link).
func init() {
	if os.Getenv("WARPLINK_MEMPROFILE") != "" {
		runtime.MemProfileRate = 4 << 10
	}
}

// startProfile starts a pprof CPU profile into the file named by
// WARPLINK_CPUPROFILE, if set, and returns the function that ends it,
// which also writes an allocation profile into the file named by
// WARPLINK_MEMPROFILE, if set. Only in binaries built with -tags pprof
// (see profile_off.go).
func startProfile() (stop func()) {
	stopCPU := startCPUProfile()
	return func() {
		stopCPU()
		writeMemProfile()
	}
}

// writeMemProfile writes the allocation profile into the file named by
// WARPLINK_MEMPROFILE, if set.
func writeMemProfile() {
	path := os.Getenv("WARPLINK_MEMPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	runtime.GC() // (the profile shows allocations up to the last collection)
	pprof.Lookup("allocs").WriteTo(f, 0)
}

// startCPUProfile starts the CPU profile of WARPLINK_CPUPROFILE, if set,
// and returns the function that ends it.
func startCPUProfile() (stop func()) {
	path := os.Getenv("WARPLINK_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
