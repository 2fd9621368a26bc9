package input

import (
	"errors"
	"fmt"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/internal/diag"
)

// Compiler compiles for the link what it cannot take as it is (package
// jit). Its methods may be called from several goroutines at once.
type Compiler interface {
	// PTX compiles PTX text into a relocatable cubin for the target, with
	// the options of the fatbinary member it came from (nil for a PTX
	// file). name is the input's (as nvlink names it), file reports a PTX
	// text file (the two name the compile in --time's rows). log is what
	// the compiler printed (nvlink prints its embedded ptxas's messages),
	// whether it failed or not. A *ToolError says the compiler itself
	// could not be run; any other error, that it failed.
	PTX(name string, file bool, ptx []byte, opts []string) (cubin []byte, log string, err error)
	// IR is asked about an input with NVVM IR for the target (name as
	// nvlink names it). lto false: the link is no LTO link, and the input
	// is linked as if it had no IR. Else the input is part of the LTO
	// program: cubins are that program's cubins (one, or one per module
	// of a split compile) for the last IR input, which they replace in
	// the link (each as "lto.cubin"), nil for the others; hostKernels are
	// then the kernels the host code of all IR inputs references (the
	// cubins' HostKernels).
	IR(name string) (cubins [][]byte, hostKernels []string, lto bool)
	// Warning is a warning about the compiler (another release than the
	// emulated nvlink's) the first time it is called, "" after that and
	// when there is none.
	Warning() string
}

// ToolError is a compiler that could not be found or run.
type ToolError struct{ Msg string }

func (e *ToolError) Error() string { return e.Msg }

// jitKey is the key of the compiler's warning: before every input's
// diagnostics, whichever input needed it first.
var jitKey = diag.At(diag.PhaseInputs, -1, 1)

// jitPTX compiles the PTX of the input named name (compute_<from>; 0 for
// a PTX file) into units, as nvlink's embedded ptxas does: the unit takes
// the input's name. Without a compiler it fails as warplink always did.
func (x *expander) jitPTX(name, path string, ptx []byte, opts []string, from int) ([]Unit, error) {
	if x.jit == nil {
		if from == 0 {
			return nil, x.fatal("'%s': PTX input needs JIT compilation by ptxas, which warplink does not do", name)
		}
		return nil, x.fatal("'%s' has no %s code, only PTX for compute_%d, which needs JIT compilation by ptxas, which warplink does not do", name, x.target(), from)
	}
	if w := x.jit.Warning(); w != "" {
		x.diags.Warnf(jitKey, "%s", w)
	}
	cubin, log, err := x.jit.PTX(name, from == 0, ptx, opts)
	if log != "" {
		x.diags.Text(x.key(), log)
	}
	var te *ToolError
	switch {
	case errors.As(err, &te):
		return nil, x.fatal("'%s': %s", name, te.Msg)
	case err == nil && len(cubin) > 0 && !elf.IsELF(cubin):
		// A ptxas given an informational option (-Xptxas --version,
		// --help) prints its text where the cubin goes and exits 0
		// (nothing at all is no such text: a bad cubin, below);
		// nvlink's built-in one then ends nvlink: its text on standard
		// output, status 0, no output, the inputs after unread (11.8,
		// 12.5; TestJITLTO's info group).
		x.diags.Exit(x.key(), string(cubin))
		return nil, &FatalError{"ptxas exited"}
	case err != nil:
		// (nvlink 11.8: ptxas's own messages, then this; also for PTX
		// of a higher target than the link's.)
		return nil, x.fatal("elfLink fatbinary error")
	}
	us, err := x.cubin(name, path, cubin, true)
	if err == nil && len(us) == 0 {
		err = x.fatal("'%s': %s", name, fmt.Sprintf("the compiled PTX is not a relocatable cubin for %s", x.target()))
	}
	return us, err
}

// ltoName is how nvlink names the LTO program's cubin in diagnostics.
const ltoName = "lto.cubin"

// ir handles an input whose fatbinary members ms hold NVVM IR for the
// target in an LTO link (done false: not an LTO link, or no such IR).
func (x *expander) ir(name, path string, ms []fatbin.Member) (us []Unit, done bool, err error) {
	if x.jit == nil || !hasIR(ms, x.arch) {
		return nil, false, nil
	}
	cubins, kernels, lto := x.jit.IR(name)
	if !lto {
		return nil, false, nil
	}
	for _, cubin := range cubins {
		u, err := x.cubin(ltoName, path, cubin, true)
		if err != nil {
			return nil, true, err
		}
		us = append(us, u...)
	}
	for i := range us {
		us[i].HostKernels = kernels
	}
	return us, true, nil
}

// hasIR reports whether ms hold NVVM IR for a compute arch up to arch.
func hasIR(ms []fatbin.Member, arch int) bool {
	for i := range ms {
		if ms[i].Kind == fatbin.KindNVVM && ms[i].Arch <= arch {
			return true
		}
	}
	return false
}
