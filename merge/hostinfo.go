package merge

// Host reference information: which kernels the host code of the link's
// host objects launches, which nvlink 11.8 uses by default to remove the
// others (testdata/crafted/host-info-*).
//
// Inputs: Context.hostInfoMissing and each object's hostKernels (from
// nvcc's .nvHRKE and .nvHRKI sections of the host object it came from). Output:
// Context.hostKernels, set when the link uses them. Invariants: they are
// used only when every input but the device runtime's has host
// information (host objects without device code count: a g++ object, an
// archive of nvcc -c objects; Context.hostInfoMissing), one of them names
// a kernel, and neither -g, --ignore-host-info, --kernels-used nor
// --variables-used is given; a kernel is used when its name matches one
// of the patterns, '*' standing for any run of characters, the whole
// name matched ("_Z2tk*" keeps every instantiation of template tk, not
// _Z7my_Z2tkPfi).

import (
	"slices"
	"strings"
)

// hostKernelSet holds the kernel name patterns of the host objects,
// indexed by their literal prefix (what comes before the first '*'), so
// that a name is matched only against the patterns its prefixes start.
type hostKernelSet struct {
	byPrefix map[string][]string
	longest  int // the longest literal prefix
}

// hostKernels returns the link's host kernel patterns, nil when the link
// does not use host information.
func hostKernels(ctx *Context) *hostKernelSet {
	o := ctx.Opts
	if o.IgnoreHostInfo || ctx.keep.EveryKernelUsed || len(o.KernelsUsed) > 0 || len(o.VariablesUsed) > 0 || ctx.hostInfoMissing {
		return nil
	}
	// Used when a user object names a kernel (the device runtime's objects
	// name some of theirs, but do not make the link use the information).
	if !slices.ContainsFunc(ctx.Objs, func(obj *Obj) bool { return !obj.System && len(obj.hostKernels()) > 0 }) {
		// No host code launches a kernel (objects built only for their
		// device code, the corpus's): nvlink keeps them all.
		return nil
	}
	set := &hostKernelSet{byPrefix: map[string][]string{}}
	for _, obj := range ctx.Objs {
		for _, p := range obj.hostKernels() {
			prefix, _, _ := strings.Cut(p, "*")
			if !slices.Contains(set.byPrefix[prefix], p) {
				set.byPrefix[prefix] = append(set.byPrefix[prefix], p)
			}
			set.longest = max(set.longest, len(prefix))
		}
	}
	return set
}

// match reports whether name matches one of the patterns.
func (h *hostKernelSet) match(name string) bool {
	for i := 0; i <= min(len(name), h.longest); i++ {
		for _, p := range h.byPrefix[name[:i]] {
			if globMatch(p, name) {
				return true
			}
		}
	}
	return false
}

// globMatch reports whether name matches pattern p as a whole, '*' in p
// standing for any run of characters (no other character is special).
func globMatch(p, name string) bool {
	// The classic greedy match with one backtracking point: the last '*'.
	star, mark := -1, 0
	i, j := 0, 0
	for j < len(name) {
		switch {
		case i < len(p) && p[i] == '*':
			star, mark = i, j
			i++
		case i < len(p) && p[i] == name[j]:
			i++
			j++
		case star >= 0:
			i, mark = star+1, mark+1
			j = mark
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

// kernelUsed reports whether the kernel named name is one the link uses:
// every kernel (under -g: keepPolicy.EveryKernelUsed), those the host
// code references (hostKernels), or those --kernels-used names
// (Options.kernelUsed).
func (ctx *Context) kernelUsed(name string) bool {
	if ctx.hostKernels != nil {
		return ctx.hostKernels.match(name)
	}
	return ctx.keep.EveryKernelUsed || ctx.Opts.kernelUsed(name)
}

// usedFilter reports whether the link removes the kernels it does not use:
// --kernels-used, --variables-used or the host objects' information.
func (ctx *Context) usedFilter() bool {
	return len(ctx.Opts.KernelsUsed) > 0 || len(ctx.Opts.VariablesUsed) > 0 || ctx.hostKernels != nil
}
