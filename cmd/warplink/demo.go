package main

import (
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/cmpelf"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

// demoFiles are the xcall corpus program's relocatable cubins (sm_90): a
// kernel in a.cubin calling through b.cubin into c.cubin, and ref.cubin,
// what nvlink 11.8 writes for them.
//
//go:embed demo/a.cubin demo/b.cubin demo/c.cubin demo/ref.cubin
var demoFiles embed.FS

// demoInputs are the embedded inputs, in command-line order.
var demoInputs = []string{"a.cubin", "b.cubin", "c.cubin"}

// demo links the embedded cubins into demo.cubin (or -o FILE) and shows a
// newcomer what the link did: each input's definitions and references,
// where each reference was resolved, the output's kernels, and how the
// output compares with nvlink's.
func demo(args []string, stdout, stderr io.Writer) int {
	out := "demo.cubin"
	switch {
	case len(args) == 2 && args[0] == "-o":
		out = args[1]
	case len(args) != 0:
		fmt.Fprintln(stderr, "usage: warplink demo [-o FILE]")
		return 2
	}
	dir, err := os.MkdirTemp("", "warplink-demo")
	if err != nil {
		fmt.Fprintf(stderr, "warplink demo: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	opts := &merge.Options{Flags: linkflags.Flags{Arch: "sm_90", Output: out, Machine64: true, CPUArch: "X86_64"}}
	definedIn := map[string]string{} // global name -> the input defining it
	var refs [][2]string             // (input, undefined name), in input order
	for _, name := range demoInputs {
		data, _ := demoFiles.ReadFile("demo/" + name)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			fmt.Fprintf(stderr, "warplink demo: %v\n", err)
			return 1
		}
		opts.Inputs = append(opts.Inputs, p)
		defs, undefs := demoSymbols(data)
		for _, d := range defs {
			definedIn[d] = name
		}
		for _, u := range undefs {
			refs = append(refs, [2]string{name, u})
		}
		fmt.Fprintf(stdout, "input   %-8s %5d bytes  defines %s\n", name, len(data), listOr(defs, "nothing"))
	}
	for _, r := range refs {
		fmt.Fprintf(stdout, "resolve %-8s %s -> %s\n", r[0], r[1], orDefault(definedIn[r[1]], "(undefined)"))
	}
	start := time.Now()
	code := merge.Link(opts, stdout, stderr, "warplink")
	took := time.Since(start)
	if code != 0 {
		fmt.Fprintf(stderr, "warplink demo: link failed with status %d\n", code)
		return code
	}
	data, err := os.ReadFile(out)
	if err != nil {
		fmt.Fprintf(stderr, "warplink demo: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "output  %s  %d bytes", out, len(data))
	if f, err := elf.Parse(data); err == nil {
		fmt.Fprintf(stdout, ", %d sections, %d symbols, kernels %s", len(f.Sections), len(f.Symbols), listOr(demoKernels(f), "none"))
	}
	fmt.Fprintf(stdout, "\nlinked sm_90 in %v\n", took.Round(time.Microsecond))
	ref, _ := demoFiles.ReadFile("demo/ref.cubin")
	switch rep, err := cmpelf.Compare(data, ref); {
	case err != nil:
		fmt.Fprintf(stdout, "nvlink  cannot compare: %v\n", err)
	case rep.Identical:
		fmt.Fprintln(stdout, "nvlink  byte-identical to nvlink 11.8's output for the same inputs")
	default:
		fmt.Fprintf(stdout, "nvlink  differs from nvlink 11.8's output: %s\n", strings.Join(rep.Diffs, "; "))
		return 1
	}
	return 0
}

// demoSymbols lists the global functions and variables a relocatable
// cubin defines and the ones it references undefined.
func demoSymbols(data []byte) (defs, undefs []string) {
	f, err := elf.Parse(data)
	if err != nil {
		return nil, nil
	}
	for i := range f.Symbols {
		s := &f.Symbols[i]
		if s.Bind() == elf.STBLocal || s.Name == "" || (s.Type() != elf.STTFunc && s.Type() != elf.STTObject) {
			continue
		}
		if s.Shndx == elf.SHNUndef {
			undefs = append(undefs, s.Name)
		} else {
			defs = append(defs, s.Name)
		}
	}
	return defs, undefs
}

// demoKernels lists the output's kernels (functions marked STO_CUDA_ENTRY).
func demoKernels(f *elf.File) []string {
	var l []string
	for i := range f.Symbols {
		if s := &f.Symbols[i]; s.Type() == elf.STTFunc && s.Other&0x10 != 0 && s.Shndx != elf.SHNUndef {
			l = append(l, s.Name)
		}
	}
	return l
}

// listOr joins l with commas, or says none.
func listOr(l []string, none string) string {
	if len(l) == 0 {
		return none
	}
	return strings.Join(l, ", ")
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
