package cmpelf

import (
	"fmt"
	"io"
	"os"

	"github.com/warplink/warplink/elf"
)

// Exit statuses of Main.
const (
	ExitIdentical  = 0
	ExitEquivalent = 1
	ExitDifferent  = 2
	ExitError      = 3
)

const usage = `usage: cmpelf cmp OURS REF
       cmpelf dump [-hex] FILE`

// Main runs the cmpelf command; args exclude the program name.
//
// "cmp OURS REF" prints the differences of OURS from REF, one a line, then a
// verdict, and exits 0 when the files are byte-identical, 1 when they are
// equivalent (they differ in layout only), 2 when they are not equivalent.
// "dump [-hex] FILE" prints elf.Dump of FILE. Usage and read errors exit 3.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return ExitError
	}
	switch args[0] {
	case "cmp":
		if len(args) != 3 {
			fmt.Fprintln(stderr, usage)
			return ExitError
		}
		return runCmp(args[1], args[2], stdout, stderr)
	case "dump":
		opt := elf.DumpOptions{}
		rest := args[1:]
		if len(rest) > 0 && rest[0] == "-hex" {
			opt.Hex = true
			rest = rest[1:]
		}
		if len(rest) != 1 {
			fmt.Fprintln(stderr, usage)
			return ExitError
		}
		return runDump(rest[0], opt, stdout, stderr)
	}
	fmt.Fprintln(stderr, usage)
	return ExitError
}

func runCmp(oursPath, refPath string, stdout, stderr io.Writer) int {
	ours, err := os.ReadFile(oursPath)
	if err != nil {
		fmt.Fprintf(stderr, "cmpelf: %v\n", err)
		return ExitError
	}
	ref, err := os.ReadFile(refPath)
	if err != nil {
		fmt.Fprintf(stderr, "cmpelf: %v\n", err)
		return ExitError
	}
	rep, err := Compare(ours, ref)
	if err != nil {
		fmt.Fprintf(stderr, "cmpelf: %v\n", err)
		return ExitError
	}
	for _, d := range rep.Diffs {
		fmt.Fprintln(stdout, d)
	}
	switch {
	case rep.Identical:
		fmt.Fprintln(stdout, "identical")
		return ExitIdentical
	case rep.Equivalent:
		fmt.Fprintln(stdout, "equivalent: layout differs")
		return ExitEquivalent
	}
	fmt.Fprintln(stdout, "not equivalent")
	return ExitDifferent
}

func runDump(path string, opt elf.DumpOptions, stdout, stderr io.Writer) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "cmpelf: %v\n", err)
		return ExitError
	}
	f, err := elf.Parse(b)
	if err != nil {
		fmt.Fprintf(stderr, "cmpelf: %s: %v\n", path, err)
		return ExitError
	}
	if err := elf.DumpWith(stdout, f, opt); err != nil {
		fmt.Fprintf(stderr, "cmpelf: %v\n", err)
		return ExitError
	}
	return ExitIdentical
}
