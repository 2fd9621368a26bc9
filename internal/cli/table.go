package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// archValues are the targets nvlink 11.8 accepts for -arch: compute_,
// lto_ and sm_ of each architecture (written out: every link parses a
// command line, and building the names took a tenth of that).
var archValues = []string{
	"compute_35", "compute_37", "compute_50", "compute_52", "compute_53", "compute_60", "compute_61", "compute_62",
	"compute_70", "compute_72", "compute_75", "compute_80", "compute_86", "compute_87", "compute_89", "compute_90",
	"lto_35", "lto_37", "lto_50", "lto_52", "lto_53", "lto_60", "lto_61", "lto_62",
	"lto_70", "lto_72", "lto_75", "lto_80", "lto_86", "lto_87", "lto_89", "lto_90",
	"sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62",
	"sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
}

// num parses a value Parse has already checked.
func num(v string) int64 {
	n, _ := strconv.ParseInt(v, 0, 64)
	return n
}

// options returns a copy of nvlink 11.8's option table (options118),
// with room for releaseTable's insertions.
func options() []option {
	t := make([]option, len(options118), optionsRoom)
	copy(t, options118[:])
	return t
}

// optionsRoom is the room options makes for the table and releaseTable's
// insertions (60 at most), so that every link copies it in one
// allocation.
const optionsRoom = 64

// options118 is nvlink 11.8's option table: every option of its --help,
// in that order (Xptxas to machine, then maxrregcount to
// warning-as-error, warplink's own options among them), then the
// undocumented ones it accepts (help == ""). It is static data (constant
// fields, closures that capture nothing), which the compiler lays out in
// the binary: no link spends its start building it.
var options118 = [...]option{
	{long: "Xptxas", short: "Xptxas", kind: kString, arg: "<options>",
		help: "Ptxas options (used with LTO and PTX JIT).",
		// (One value split on white space, not on commas: nvlink 11.8
		// hands ptxas "-O1,-v" as one word; given again, the last.)
		set: func(c *Command, v string) { c.Xptxas = strings.Fields(v) }},
	{long: "arch", short: "arch", kind: kEnum, arg: "<gpu architecture name>", values: archValues,
		help: "Specify the 'sm_' name of the target architecture.",
		set:  func(c *Command, v string) { c.Opts.Arch = v }},
	{long: "cpu-arch", short: "cpu-arch", kind: kEnum, arg: "<cpu architecture name>",
		values: []string{"AARCH64", "ARMv7", "PPC64LE", "X86", "X86_64", "unknown"},
		help:   "Specify the name of the cpu target architecture (default 'unknown').",
		set:    func(c *Command, v string) { c.Opts.CPUArch = v }},
	{long: "debug", short: "g", kind: kBool,
		help: "Specify that this was a debug compile.",
		set:  func(c *Command, _ string) { c.Opts.Debug = true }},
	{long: "disable-warnings", short: "w", kind: kBool,
		help: "Inhibit all warning messages.",
		set:  func(c *Command, _ string) { c.Opts.NoWarn = true }},
	{long: "dlto", short: "dlto", kind: kBool,
		help: "Link-time optimization, alias for -lto.",
		set:  func(c *Command, _ string) { c.LTO = true }},
	{long: "dump-callgraph", short: "dump-callgraph", kind: kBool,
		help: "Dump callgraph information.",
		set:  func(c *Command, _ string) { c.Opts.DumpCallgraph = true }},
	{long: "dump-callgraph-no-demangle", short: "dump-callgraph-no-demangle", kind: kBool,
		help: "Dump callgraph information without demangling.",
		// nvlink 11.8 prints demangled names all the same (checked on
		// corpus xcall), so the report does not depend on it.
		set: func(c *Command, _ string) { c.Opts.DumpCallgraph = true; c.DumpCallgraphNoDemangle = true }},
	{long: "emit-ptx", short: "emit-ptx", kind: kBool,
		// (A flag in nvlink 11.8, whatever its --help shows: the PTX
		// is written to the -o file.)
		help: "Emit a ptx file when LTO is used.",
		set:  func(c *Command, _ string) { c.EmitPTX = true }},
	{long: "extra-warnings", short: "extrawarn", kind: kBool,
		help: "Emit extra warnings about possible problems.",
		set:  func(c *Command, _ string) { c.ExtraWarnings = true }},
	{long: "gen-host-linker-script", short: "ghls", kind: kEnum, arg: "<host linker script type>",
		values: []string{"lcs-abs", "lcs-aug"}, optional: "lcs-abs",
		help: "Write a host linker script of the given type instead of linking.",
		set:  func(c *Command, v string) { c.HostLinkerScript = v }},
	{long: "help", short: "h", kind: kBool,
		help: "Print this help information.",
		set:  func(c *Command, _ string) { c.Help = true }},
	{long: "ignore-host-info", short: "ignore-host-info", kind: kBool,
		help: "Ignore host references: keep device code the host might reference.",
		set:  func(c *Command, _ string) { c.Opts.IgnoreHostInfo = true }},
	{long: "keep-system-libraries", short: "keep-system-libraries", kind: kBool,
		help: "Keep unused code of system libraries (e.g. cudadevrt).",
		set:  func(c *Command, _ string) { c.Opts.KeepSystemLibraries = true }},
	{long: "kernels-used", short: "kernels-used", kind: kList, arg: "<kernel>,...",
		help: "Keep only kernels whose names contain one of these strings.",
		set:  func(c *Command, v string) { c.Opts.KernelsUsed = append(c.Opts.KernelsUsed, v) }},
	{long: "library", short: "l", kind: kList, arg: "<library>,...", joined: true,
		help: "Link lib<library>.a, searched for on the -L paths.",
		set:  func(c *Command, v string) { c.Opts.Inputs = append(c.Opts.Inputs, "-l"+v) }},
	{long: "library-path", short: "L", kind: kList, arg: "<library-path>,...", joined: true,
		help: "Add library search paths.",
		set:  func(c *Command, v string) { c.Opts.LibDirs = append(c.Opts.LibDirs, v) }},
	{long: "link-time-opt", short: "lto", kind: kBool,
		help: "Link-time optimization.",
		set:  func(c *Command, _ string) { c.LTO = true }},
	{long: "machine", short: "m", kind: kNumber, arg: "<bits>", values: []string{"32", "64"}, joined: true,
		help: "Specify 32 or 64 bit host architecture (default 64).",
		set:  func(c *Command, v string) { c.Opts.Machine64 = num(v) == 64 }},
	{long: "maxrregcount", short: "maxrregcount", kind: kNumber, arg: "<amount>",
		help: "Max register count (used with LTO and PTX JIT).",
		set:  func(c *Command, v string) { c.MaxRegCount = num(v) }},
	{long: "nvvmpath", short: "nvvmpath", kind: kString, arg: "<path>",
		help: "Path to libnvvm (used with LTO).",
		set:  func(c *Command, v string) { c.NVVMPath = v }},
	{long: "options-file", short: "optf", kind: kList, arg: "<file>,...",
		help: "Read more command-line options from the files."},
	{long: "output-file", short: "o", kind: kString, arg: "<file name>",
		help: "Name of the output file.",
		set:  func(c *Command, v string) { c.Opts.Output, c.outputGiven = v, true }},
	{long: "preserve-relocs", short: "preserve-relocs", kind: kBool,
		help: "Keep resolved relocations in the output.",
		set:  func(c *Command, _ string) { c.Opts.PreserveRelocs = true }},
	{long: "register-link-binaries", kind: kString, arg: "<file name>",
		help: "Write the cudaRegister routine names of the linked files to this file.",
		set:  func(c *Command, v string) { c.Opts.RegisterLinkBinaries = v }},
	{long: "report-arch", short: "report-arch", kind: kBool,
		help: "Report the SM target arch in error messages.",
		set:  func(c *Command, _ string) { c.Opts.ReportArch = true }},
	{long: "suppress-arch-warning", short: "suppress-arch-warning", kind: kBool,
		help: "Do not warn when an object has no code for the target arch.",
		set:  func(c *Command, _ string) { c.Opts.SuppressArchWarning = true }},
	{long: "suppress-debug-info", short: "suppress-debug-info", kind: kBool,
		help: "Drop debug information from the output (requires --debug).",
		set:  func(c *Command, _ string) { c.SuppressDebugInfo = true }},
	{long: "suppress-stack-size-warning", short: "suppress-stack-size-warning", kind: kBool,
		help: "Do not warn when a stack size cannot be determined.",
		set:  func(c *Command, _ string) { c.Opts.SuppressStackSizeWarning = true }},
	// warplink's own options (nvlink has none of these names).
	{long: "warplink-dump", kind: kEnum, arg: "<pass>",
		values: []string{"read", "resolve", "merge", "dce", "layout", "relocate", "finalize", "order", "write"},
		help:   "warplink: print the link state after this pass to stderr.",
		set:    func(c *Command, v string) { c.Warplink.Dump = v }},
	{long: "warplink-threads", kind: kNumber, arg: "<N>",
		help: "warplink: use at most N threads (default: all cores); the output does not change.",
		set:  func(c *Command, v string) { n, _ := strconv.ParseInt(v, 0, 64); c.Warplink.Threads = int(n) }},
	{long: "warplink-shards", kind: kNumber, arg: "<N>",
		help: "warplink: resolve symbols in N shards (default: one per thread); the output does not change.",
		set:  func(c *Command, v string) { n, _ := strconv.ParseInt(v, 0, 64); c.Warplink.Shards = int(n) }},
	{long: "time", short: "time", kind: kString, arg: "<file name>",
		help: "Append a CSV table of the time taken per phase to the file ('-' = stdout).",
		set:  func(c *Command, v string) { c.Opts.Time = v }},
	{long: "use-host-info", short: "use-host-info", kind: kBool,
		help: "Use host references to remove unused device code.",
		set:  func(c *Command, _ string) { c.Opts.UseHostInfo = true }},
	{long: "variables-used", short: "variables-used", kind: kList, arg: "<variable>,...",
		help: "Keep only variables whose names contain one of these strings (unless otherwise referenced).",
		set:  func(c *Command, v string) { c.Opts.VariablesUsed = append(c.Opts.VariablesUsed, v) }},
	{long: "verbose", short: "v", kind: kBool,
		help: "Print code generation statistics.",
		set:  func(c *Command, _ string) { c.Opts.Verbose = true }},
	{long: "version", short: "V", kind: kBool,
		help: "Print version information.",
		set:  func(c *Command, _ string) { c.Version = true }},
	{long: "warning-as-error", short: "Werror", kind: kBool,
		help: "Make all warnings into errors.",
		set:  func(c *Command, _ string) { c.Opts.Werror = true }},
	// The options nvlink 11.8 accepts without listing them in --help
	// (nvcc passes some of them).
	{long: "allow-undefined-globals", short: "allow-undefined-globals", kind: kBool,
		set: func(c *Command, _ string) { c.Opts.AllowUndefinedGlobals = true }},
	{long: "cuda-api-version", short: "cuda-api-version", kind: kString,
		set: func(c *Command, v string) { c.CUDAAPIVersion = v }},
	{long: "disable-smem-reservation", short: "disable-smem-reservation", kind: kTruth,
		set: func(c *Command, v string) { c.DisableSmemReservation = v == "true" }},
	{long: "dont-reserve-null-pointer", short: "dont-reserve-null-pointer", kind: kBool,
		set: func(c *Command, _ string) { c.DontReserveNullPointer = true }},
	{long: "dot-file", short: "dot", kind: kString,
		set: func(c *Command, v string) { c.DotFile = v }},
	{long: "force-partial-lto", short: "force-partial-lto", kind: kBool,
		set: func(c *Command, _ string) { c.ForcePartialLTO = true }},
	{long: "force-rela", short: "force-rela", kind: kBool,
		set: func(c *Command, _ string) { c.ForceRela = true }},
	{long: "force-whole-lto", short: "force-whole-lto", kind: kBool,
		set: func(c *Command, _ string) { c.ForceWholeLTO = true }},
	{long: "host-ccbin", short: "host-ccbin", kind: kString,
		set: func(c *Command, v string) { c.HostCCBin = v }},
	{long: "host-linker-options", short: "Xlinker", kind: kList,
		set: func(c *Command, v string) { c.HostLinkerOptions = append(c.HostLinkerOptions, v) }},
	{long: "host-relocatable-link", short: "r", kind: kBool,
		set: func(c *Command, _ string) { c.Relocatable = true }},
	{short: "lineinfo", kind: kBool,
		set: func(c *Command, _ string) { c.LineInfo = true }},
	{long: "reserve-null-pointer", short: "reserve-null-pointer", kind: kBool,
		set: func(c *Command, _ string) { c.ReserveNullPointer = true }},
	{long: "shared", short: "shared", kind: kBool,
		set: func(c *Command, _ string) { c.Shared = true }},
	{long: "syscall-const-offset", short: "syscall-const-offset", kind: kNumber,
		set: func(c *Command, v string) { c.SyscallConstOffset = num(v) }},
	{long: "tool-name", short: "tool-name", kind: kString,
		set: func(c *Command, v string) { c.ToolName = v }},
	{long: "uumn", short: "uumn", kind: kBool,
		set: func(c *Command, _ string) { c.UUMN = true }},
}

// PrintHelp writes the --help text, in nvlink's layout, under prog.
func PrintHelp(w io.Writer, prog string) { PrintHelpFor(w, prog, 0) }

// PrintHelpFor is PrintHelp with the options of nvlink of version rel (0:
// of every release warplink links as).
func PrintHelpFor(w io.Writer, prog string, rel int) {
	fmt.Fprintf(w, "\nUsage  : %s [options] <objects>\n\nOptions\n=======\n\n", prog)
	for _, o := range releaseTable(options(), rel) {
		if o.help == "" {
			continue
		}
		name := "--" + o.long
		if o.arg != "" {
			name += " " + o.arg
		}
		short := ""
		if o.short != "" {
			short = "(-" + o.short + ")"
		}
		line := fmt.Sprintf("%-52s%s", name, short)
		fmt.Fprintf(w, "%s\n        %s\n", strings.TrimRight(line, " "), o.help)
		if len(o.values) > 0 && o.long != "arch" {
			fmt.Fprintf(w, "        Allowed values for this option:  '%s'.\n", strings.Join(o.values, "','"))
		}
		fmt.Fprintln(w)
	}
}

// Version is warplink's own version.
const Version = "0.1.0"

// PrintVersion writes the -V banner in nvlink's layout under prog, for
// the nvlink release named ("12.5"; "": the inputs choose, and the banner
// names 11.8, whose line build tools parse, and the others).
func PrintVersion(w io.Writer, prog, release string) {
	fmt.Fprintf(w, "%s: warplink %s, parallel CUDA device linker\n", prog, Version)
	fmt.Fprintf(w, "Copyright (c) The warplink authors\n")
	if v := releaseBuild(release); v != "" {
		fmt.Fprintf(w, "Compatible with nvlink of Cuda compilation tools, release %s, %s\n", release, v)
		return
	}
	fmt.Fprintf(w, "Compatible with nvlink of Cuda compilation tools, release 11.8, V11.8.89\n")
	fmt.Fprintf(w, "Links as the nvlink of the toolkit the newest input was built with: 11.8, 12.4, 12.5 or 13.0 (--nvlink-version names one)\n")
}

// releaseBuild is the build of the nvlink release warplink links as ("":
// none of them). (A switch, not a map: a map variable is made at every
// start, by the package's initialization.)
func releaseBuild(release string) string {
	switch release {
	case "11.8":
		return "V11.8.89"
	case "12.4":
		return "V12.4.131"
	case "12.5":
		return "V12.5.40"
	case "13.0":
		return "V13.0.88"
	}
	return ""
}
