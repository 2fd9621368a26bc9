//go:build pprof

package main

import (
	"os"
	"runtime/pprof"
)

// startProfile starts a pprof CPU profile into the file named by
// WARPLINK_CPUPROFILE, if set, and returns the function that ends it. Only
// in binaries built with -tags pprof (see profile_off.go).
func startProfile() (stop func()) {
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
