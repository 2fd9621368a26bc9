package merge

// Reports finalize prints: the -v resource summary (reportProperties) and
// undefined references (reportUndefined), with the symbol kinds they
// need (bound texture/surface references, driver-provided functions).
// Invariant: the messages and their order are nvlink's.

import (
	"fmt"
	"strings"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
)

// reportProperties prints nvlink's -v summary: global memory and
// module-scope constant banks, then each entry's resources, latest first.
func reportProperties(ctx *Context) {
	var gmem uint64
	var banks []string
	for _, id := range ctx.Order {
		s := ctx.Secs[id]
		switch {
		case s.Name == ".nv.global" || s.Name == ".nv.global.init":
			gmem += s.Size
		case isModuleBankName(s.Name):
			banks = append(banks, fmt.Sprintf(", %d bytes cmem[%s]", s.Size, s.Name[len(".nv.constant"):]))
		}
	}
	seq := 0
	info := func(format string, a ...any) {
		ctx.Diags.Infof(diag.At(diag.PhaseVerbose, 0, seq), format, a...)
		seq++
	}
	info("%d bytes gmem%s", gmem, strings.Join(banks, ""))
	regs, frame := map[int32]uint32{}, map[int32]uint32{}
	{
		for _, r := range decodeCompact(nil, ctx.infoReport) {
			switch r.Code {
			case elf.EIAttrRegcount:
				regs[r.sym] = r.U32(4)
			case elf.EIAttrFrameSize:
				if _, ok := frame[r.sym]; !ok {
					frame[r.sym] = r.U32(4)
				}
			case elf.EIAttrMinStackSize:
				// The whole stack an entry needs; its own frame when
				// recursion leaves that unknown.
				if v := r.U32(4); v != 0xFFFFFFFF {
					frame[r.sym] = v
				}
			}
		}
	}
	texts := ctx.liveTexts
	for k := len(texts) - 1; k >= 0; k-- {
		t := ctx.Secs[texts[k]]
		f := t.InfoSym
		if t.Dead || f < 0 || ctx.Syms[f].Other&stoCudaEntry == 0 { // (Dead: orderSections dropped it, empty)
			continue
		}
		suffix := strings.TrimPrefix(t.Name, ".text")
		size := func(prefix string) uint64 {
			if id, ok := ctx.secNamed(prefix + suffix); ok && !ctx.Secs[id].Dead {
				return ctx.Secs[id].Size
			}
			return 0
		}
		info("Function properties for '%s':", ctx.Syms[f].Name)
		info("used %d registers, %d stack, %d bytes smem, %d bytes cmem[0], %d bytes lmem",
			regs[f], frame[f], size(".nv.shared"), size(".nv.constant0"), size(".nv.local"))
	}
}

// reportUndefined reports every global still undefined, naming the first
// file that referenced it: data whoever names it, a function only when
// code that dead code elimination kept names it (nvlink 11.8: an extern
// __device__ variable that only an uncalled function reads is an undefined
// reference, an undefined function that only it calls is not; crafted
// undefined-data-dead-code).
func reportUndefined(ctx *Context) {
	for pos, id := range ctx.Globals {
		s := ctx.Syms[id]
		if t := s.Type(); s.Sec >= 0 || s.Shndx != 0 || !ctx.referencedLive(id) && t != elf.STTObject && t != sttCudaObject {
			continue
		}
		if driverProvided(s.Name) || ctx.Opts.AllowUndefinedGlobals || s.Bind() == elf.STBWeak && ctx.Rel.LocalByBinding ||
			ctx.Rel.ReservedSmemGlobal && s.Name == reservedSmemName {
			// (Weak undefined symbols of the global part: CUDA 13.0's
			// objects have their __UFT/__UDT tables and
			// .nv.reservedSmem.offset0 there.)
			continue
		}
		if ctx.bound.lists(id) {
			// A bound texture or surface reference (boundref.go), with
			// its slots, or one no kept kernel uses that only -G debug
			// information names (crafted debug-bound-references-unused).
			continue
		}
		if kind, ok := boundReference(s.Type()); ok {
			// Sampler references (which nvcc does not write), and a
			// texture or surface reference no kernel reaches: a clear
			// refusal, not an undefined reference (see boundref.go).
			why := "no kernel reaches it"
			if kind == "Sampler" {
				why = "sampler references are not linked"
			}
			ctx.Diags.Errorf(diag.At(diag.PhaseReports, 2, pos), "%s reference '%s' in '%s' is not supported by warplink (%s)",
				kind, s.Name, ctx.Objs[s.File].Name, why)
			continue
		}
		ctx.Diags.Errorf(diag.At(diag.PhaseReports, 2, pos), "Undefined reference to '%s' in '%s'", s.Name, ctx.Objs[s.File].Name)
	}
}

// boundReference reports the symbol types of bound (pre-CUDA 12)
// texture and surface references, with their kind, as ptxas writes them:
// 10 for a texture, 12 for a surface (sampler 11).
func boundReference(typ uint8) (string, bool) {
	switch typ {
	case 10:
		return "Texture", true
	case 11:
		return "Sampler", true
	case 12:
		return "Surface", true
	}
	return "", false
}

// driverProvided reports functions the CUDA driver supplies at load time
// (the device "system calls"), which may stay undefined in an executable.
func driverProvided(name string) bool {
	switch name {
	case "vprintf", "malloc", "free", "__assertfail", "__cuda_syscall":
		return true
	}
	// cnp*: the device runtime's entry points into the driver.
	return strings.HasPrefix(name, "__cuda_syscall") || strings.HasPrefix(name, "cnp")
}
