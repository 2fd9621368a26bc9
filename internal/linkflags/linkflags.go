// Package linkflags holds what a link's command line decides: nvlink's
// options (Flags) and warplink's own (Warplink). internal/cli fills them
// from the command line; merge.Options carries them to the passes, which
// only read them. Tuning knobs and callbacks that no command line sets
// live in merge (merge.Tuning, merge.Hooks).
package linkflags

import (
	"strconv"
	"strings"
)

// Flags are nvlink's command-line options, as internal/cli parses them.
type Flags struct {
	Arch      string   // target, e.g. "sm_90" (from -arch)
	Output    string   // -o; "" means nvlink's default "a.out"
	Inputs    []string // input paths and "-l<name>" entries, in command-line order
	LibDirs   []string // -L directories, in order ($LIBRARY_PATH is not consulted)
	Machine64 bool     // -m64 (the default)
	// ToolOptions are the options as nvlink 13.0 records them in the
	// note of its own it puts first in .note.nv.tkinfo ("-arch sm_90 -L
	// <dir> "; internal/cli renders them: Release.ToolNote).
	ToolOptions              string
	CPUArch                  string   // -cpu-arch
	Debug                    bool     // -g
	NoWarn                   bool     // -w
	Werror                   bool     // -Werror
	ReportArch               bool     // -report-arch: every message ends " (target: <arch>)"
	Verbose                  bool     // -v
	PreserveRelocs           bool     // --preserve-relocs
	SuppressStackSizeWarning bool     // --suppress-stack-size-warning
	SuppressArchWarning      bool     // --suppress-arch-warning
	DumpCallgraph            bool     // --dump-callgraph
	KernelsUsed              []string // --kernels-used
	VariablesUsed            []string // --variables-used
	IgnoreHostInfo           bool     // --ignore-host-info
	UseHostInfo              bool     // --use-host-info
	KeepSystemLibraries      bool     // --keep-system-libraries
	AllowUndefinedGlobals    bool     // --allow-undefined-globals
	RegisterLinkBinaries     string   // --register-link-binaries FILE
	Time                     string   // --time FILE ("-" for stdout): CSV per pass
	// NvlinkVersion names the nvlink release to link as ("12.5";
	// --nvlink-version or WARPLINK_NVLINK_VERSION); "" = the release of
	// the toolkit the newest input was built with (merge/release.go).
	NvlinkVersion string
}

// Warplink are warplink's own command-line options (the --warplink-*
// names, which nvlink has not); none changes the output.
type Warplink struct {
	// Dump names a pass after which to print the link state ("" = none):
	// the sections and symbols built so far, or the output file after write.
	Dump string
	// Threads bounds parallelism (0 = GOMAXPROCS); Shards is the number of
	// symbol shard owners (0 = default).
	Threads int
	Shards  int
}

// Target is the SM number of -arch sm_<n> or compute_<n> (with or without
// an a or f suffix; 0 for anything else), and whether it names a virtual
// target (compute_<n>): nvlink then reads and checks the inputs as for
// sm_<n>, compiling PTX and NVVM IR for it, names compute_<n> in its
// messages, and writes no output.
func (f *Flags) Target() (sm int, virtual bool) {
	a, ok := strings.CutPrefix(f.Arch, "sm_")
	if !ok {
		if a, virtual = strings.CutPrefix(f.Arch, "compute_"); !virtual {
			return 0, false
		}
	}
	sm, err := strconv.Atoi(strings.TrimRight(a, "af"))
	if err != nil || sm < 0 {
		return 0, false
	}
	return sm, virtual
}
