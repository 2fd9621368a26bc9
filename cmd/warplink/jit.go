package main

import (
	"io"
	"os"
	"strconv"

	"github.com/warplink/warplink/internal/atomicfile"
	"github.com/warplink/warplink/internal/cli"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/jit"
	"github.com/warplink/warplink/merge"
)

// jitOptions is what the command line says to the compiles of PTX and
// NVVM IR (package jit). WARPLINK_PTXAS names the ptxas to run.
func jitOptions(cmd *cli.Command) jit.Options {
	arch, _ := cmd.Opts.Target() // (a virtual target compiles as its sm_<n>)
	return jit.Options{
		Arch:                 arch,
		MaxRegCount:          cmd.MaxRegCount,
		Debug:                cmd.Opts.Debug && !cmd.SuppressDebugInfo,
		Xptxas:               cmd.Xptxas,
		NVVMPath:             cmd.NVVMPath,
		Release:              cmd.Release,
		Xnvvm:                cmd.Xnvvm,
		SplitCompile:         splitValue(cmd.SplitCompile),
		SplitCompileExtended: splitValue(cmd.SplitCompileExtended),
		Inputs:               cmd.Opts.Inputs,
		LibDirs:              cmd.Opts.LibDirs,
		PTXAS:                os.Getenv("WARPLINK_PTXAS"),
		// WARPLINK_ZYGOTE=0 runs each ptxas as a process of its own.
		NoZygote: os.Getenv("WARPLINK_ZYGOTE") == "0",
	}
}

// splitValue is a -split-compile[-extended] value as package jit takes
// it: "" for nvlink's default, 1.
func splitValue(v int64) string {
	if v == 1 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// ltoStep runs the LTO step of a -dlto link before the link itself
// (package jit): done reports that it ended the run with status code
// (a failure, a whole program or -emit-ptx written to -o), its --time
// rows written; else its result went to c, whose IR hook gives the link
// the LTO cubin, and the modules it registers to opts. Either way the
// link's --time rows start with those of the compiles (nvlink's ptx and
// lto.* phases).
func ltoStep(cmd *cli.Command, opts *merge.Options, c *jit.Compiler, files *atomicfile.Registry, stdout, stderr io.Writer, prog string) (code int, done bool) {
	if cmd.Opts.Time != "" {
		opts.TimeRows = func() []string { return timeRows(c.Phases(), cmd.Opts.Arch, prog) }
	}
	if !cmd.LTO {
		return 0, false
	}
	l := &jit.LTO{Options: jitOptions(cmd),
		ForcePartial: cmd.ForcePartialLTO, ForceWhole: cmd.ForceWholeLTO, IgnoreHostInfo: cmd.Opts.IgnoreHostInfo,
		EmitPTX: cmd.EmitPTX, KernelsUsed: cmd.Opts.KernelsUsed, VariablesUsed: cmd.Opts.VariablesUsed,
		Helper: os.Getenv("WARPLINK_NVVM_HELPER")}
	if cmd.Release == 0 {
		l.CheckRelease = cmd.CheckRelease
	}
	bag := &diag.Bag{Werror: cmd.Opts.Werror, NoWarn: cmd.Opts.NoWarn}
	res, err := l.Run(bag)
	if err == nil && res.Output != nil {
		if werr := atomicfile.WriteFile(files, cmd.Opts.Output, res.Output); werr != nil {
			bag.Fatalf(diag.At(diag.PhaseOutput, 0, 0), "Could not open output file '%s'", cmd.Opts.Output)
		} else if r := cmd.Opts.RegisterLinkBinaries; r != "" && atomicfile.WriteFile(files, r, merge.RegisterFile(registerModules(res.Register))) != nil {
			bag.Fatalf(diag.At(diag.PhaseOutput, 1, 0), "Could not open output file '%s'", r)
		}
	}
	bag.Print(stderr, prog)
	if err != nil || bag.Failed() || res.Output != nil {
		if cmd.Opts.Time != "" {
			var ps []jit.Phase
			if res != nil {
				ps = res.Phases
			}
			merge.AppendTime(cmd.Opts.Time, stdout, timeRows(ps, cmd.Opts.Arch, prog))
		}
		if text, exited := bag.ExitText(); exited {
			io.WriteString(stdout, text) // (ptxas ended the link: diag.Exit)
		}
		return bag.ExitCode(), true
	}
	c.SetLTO(res)
	if !res.None {
		opts.RegisterModules = registerModules(res.Register)
	}
	if cmd.Opts.Time != "" && len(res.Phases) > 0 {
		// (nvlink compiles the PTX inputs as it reads them, before its
		// LTO step: their rows come first.)
		opts.TimeRows = func() []string {
			return append(timeRows(c.Phases(), cmd.Opts.Arch, prog), timeRows(res.Phases, cmd.Opts.Arch, prog)...)
		}
	}
	return 0, false
}

// registerModules converts the LTO step's modules for package merge.
func registerModules(ms []jit.Module) []merge.RegisterModule {
	if ms == nil {
		return nil // (merge then lists the linked objects)
	}
	out := make([]merge.RegisterModule, len(ms))
	for i, m := range ms {
		out[i] = merge.RegisterModule(m)
	}
	return out
}

// timeRows are the --time rows of the compiles ps, by the program prog.
func timeRows(ps []jit.Phase, arch, prog string) []string {
	rows := make([]string, len(ps))
	for i, p := range ps {
		rows[i] = p.Row(arch, prog)
	}
	return rows
}
