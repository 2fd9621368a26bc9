// Package gobuild gives the environment in which tests and benchmarks
// build warplink as make build does (see the Makefile): CGO_ENABLED=0,
// and the collector's older marking (GOEXPERIMENT=nogreenteagc) unless
// GOEXPERIMENT is set or the Go toolchain no longer knows that
// experiment.
package gobuild

import (
	"os"
	"os/exec"
)

// Env returns the environment for goTool's build of warplink.
func Env(goTool string) []string {
	env := append(os.Environ(), "CGO_ENABLED=0")
	if os.Getenv("GOEXPERIMENT") != "" {
		return env
	}
	// (go env fails on an experiment the toolchain does not know.)
	check := exec.Command(goTool, "env", "GOEXPERIMENT")
	check.Env = append(os.Environ(), Experiment)
	if check.Run() != nil {
		return env
	}
	return append(env, Experiment)
}

// Experiment is the GOEXPERIMENT setting make build uses.
const Experiment = "GOEXPERIMENT=nogreenteagc"
