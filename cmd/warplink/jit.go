package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/warplink/warplink/internal/cli"
	"github.com/warplink/warplink/internal/jit"
)

// jitOptions is what the command line says to the compiles of PTX and
// NVVM IR (package jit). WARPLINK_PTXAS names the ptxas to run.
func jitOptions(cmd *cli.Command) jit.Options {
	arch, _ := strconv.Atoi(strings.TrimRight(strings.TrimPrefix(cmd.Opts.Arch, "sm_"), "af"))
	return jit.Options{
		Arch:        arch,
		MaxRegCount: cmd.MaxRegCount,
		Debug:       cmd.Opts.Debug && !cmd.SuppressDebugInfo,
		Xptxas:      cmd.Xptxas,
		NVVMPath:    cmd.NVVMPath,
		PTXAS:       os.Getenv("WARPLINK_PTXAS"),
	}
}
