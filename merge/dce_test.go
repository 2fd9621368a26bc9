package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/linkflags"
)

// TestLiveRefsCrafted checks dce's set of what live code names (findCalls
// fills it in its walk, findLiveRefs walks again only when a section is
// dead) against a walk made after dce: every symbol a relocation of a
// section whose functions all survived names is in the set, and
// everything else in the set is an undefined function (named by a live
// function's call-graph edge). Over every crafted case whose arguments
// are only an architecture, -g, --kernels-used, libraries and cubins:
// some remove functions (callgraph-liveness, kernels-used), most none.
func TestLiveRefsCrafted(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/crafted/*")
	linked, removed := 0, 0
	for _, dir := range dirs {
		args, err := os.ReadFile(filepath.Join(dir, "link.args"))
		if err != nil {
			continue
		}
		var fl linkflags.Flags
		ok := true
		fields := strings.Fields(string(args))
		for i := 0; i < len(fields) && ok; i++ {
			switch a := fields[i]; {
			case strings.HasPrefix(a, "-arch="):
				fl.Arch = strings.TrimPrefix(a, "-arch=")
			case a == "-g":
				fl.Debug = true
			case strings.HasPrefix(a, "--kernels-used="):
				fl.KernelsUsed = append(fl.KernelsUsed, strings.TrimPrefix(a, "--kernels-used="))
			case strings.HasPrefix(a, "-L"):
				fl.LibDirs = append(fl.LibDirs, filepath.Join(dir, strings.TrimPrefix(a, "-L")))
			case strings.HasPrefix(a, "-l"):
				fl.Inputs = append(fl.Inputs, a)
			case a == "-o":
				i++
			case strings.HasSuffix(a, ".cubin"):
				fl.Inputs = append(fl.Inputs, filepath.Join(dir, a))
			default:
				ok = false
			}
		}
		if !ok || fl.Arch == "" || len(fl.Inputs) == 0 {
			continue
		}
		var ctx *Context
		checked := false
		opts := &Options{Flags: fl, Hooks: Hooks{PassDone: func(pass string) {
			if pass == "dce" && !ctx.Diags.Failed() {
				checked = true
				if checkLiveRefs(t, ctx, filepath.Base(dir)) {
					removed++
				}
			}
		}}}
		ctx = newContext(opts, &diag.Bag{}, "warplink")
		_ = run(ctx) // (some cases fail later, as nvlink does)
		if checked {
			linked++
		}
	}
	if linked < 20 || removed == 0 {
		t.Fatalf("%d crafted links checked, %d removing functions: expected more", linked, removed)
	}
}

// checkLiveRefs compares ctx.liveRefs with a walk of every relocation
// after dce (TestLiveRefsCrafted); it reports whether dce removed a
// function.
func checkLiveRefs(t *testing.T, ctx *Context, name string) bool {
	deadCode := make([]bool, len(ctx.Secs))
	removed := false
	for _, s := range ctx.Syms {
		if s.dead && s.Type() == elf.STTFunc && s.Sec >= 0 && !s.IsSecSym {
			deadCode[s.Sec], removed = true, true
		}
	}
	want := newSymSet(len(ctx.Syms))
	for _, o := range ctx.Objs {
		o.eachRelocSection(func(t int, rels []elf.Rela) {
			if m := o.SecMap[t]; m >= 0 && !deadCode[m] {
				want.addRefs(o, rels)
			}
		})
	}
	for id := range ctx.Syms {
		s := ctx.Syms[id]
		switch got, w := ctx.liveRefs.has(int32(id)), want.has(int32(id)); {
		case w && !got:
			t.Errorf("%s: %s named by live relocations, not in the set", name, s.Name)
		case got && !w && (s.Sec >= 0 || s.Shndx != 0 || s.Type() != elf.STTFunc):
			t.Errorf("%s: %s in the set, named by no live relocation", name, s.Name)
		}
	}
	return removed
}
