package main

import (
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/merge"
)

// demoFiles are the xcall corpus program's relocatable cubins (sm_90): a
// kernel in a.cubin calling through b.cubin into c.cubin.
//
//go:embed demo/a.cubin demo/b.cubin demo/c.cubin
var demoFiles embed.FS

// demo links the embedded cubins into demo.cubin (or -o FILE) and reports
// what it did.
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
	opts := &merge.Options{Arch: "sm_90", Output: out, Machine64: true, CPUArch: "X86_64"}
	for _, name := range []string{"a.cubin", "b.cubin", "c.cubin"} {
		data, _ := demoFiles.ReadFile("demo/" + name)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			fmt.Fprintf(stderr, "warplink demo: %v\n", err)
			return 1
		}
		opts.Inputs = append(opts.Inputs, p)
		fmt.Fprintf(stdout, "input   %-8s %6d bytes\n", name, len(data))
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
		fmt.Fprintf(stdout, ", %d sections, %d symbols", len(f.Sections), len(f.Symbols))
	}
	fmt.Fprintf(stdout, "\nlinked sm_90 in %v\n", took.Round(time.Microsecond))
	return 0
}
