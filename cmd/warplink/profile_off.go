//go:build !pprof

package main

import "os"

// startProfile does nothing: CPU and allocation profiles
// (WARPLINK_CPUPROFILE, WARPLINK_MEMPROFILE) are only in binaries built
// with -tags pprof. runtime/pprof brings compress/flate and
// compress/gzip, whose package initialization alone would cost every run
// about 0.6 ms of its start (warplink --help takes 7.3 ms, fastest of
// 40).
func startProfile() (stop func()) {
	for _, v := range []string{"WARPLINK_CPUPROFILE", "WARPLINK_MEMPROFILE"} {
		if os.Getenv(v) != "" {
			os.Stderr.WriteString("warplink: " + v + " needs a binary built with -tags pprof; no profile written\n")
		}
	}
	return func() {}
}
