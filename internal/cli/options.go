// Package cli parses nvlink's command line into linkflags.Flags (and
// warplink's own options into linkflags.Warplink), with nvlink's own
// option syntax, list handling, options files and messages.
package cli

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/linkflags"
)

// Command is a parsed command line: the link options proper plus the
// options that do not reach the passes (modes, LTO settings, accepted
// no-ops).
type Command struct {
	Opts     linkflags.Flags    // nvlink's options
	Warplink linkflags.Warplink // warplink's own (--warplink-*)

	Help    bool // -h
	Version bool // -V

	// ToolName replaces the program name in link diagnostics (-tool-name).
	ToolName string
	// HostLinkerScript is the -ghls mode: "lcs-aug" or "lcs-abs"; "" = link.
	HostLinkerScript string
	HostCCBin        string // --host-ccbin (used by -ghls lcs-abs)

	// LTO and JIT settings (package jit).
	LTO             bool   // -lto, -dlto
	NVVMPath        string // -nvvmpath
	EmitPTX         bool   // -emit-ptx
	ForceWholeLTO   bool   // -force-whole-lto
	ForcePartialLTO bool   // -force-partial-lto
	Xptxas          []string
	MaxRegCount     int64

	CUDAAPIVersion          string // -cuda-api-version MAJOR.MINOR, "" = toolkit's
	APIVersion              uint32 // Check: MAJOR*10+MINOR of CUDAAPIVersion, 0 = none
	ExtraWarnings           bool   // -extrawarn
	SuppressDebugInfo       bool   // -suppress-debug-info
	DumpCallgraphNoDemangle bool   // -dump-callgraph-no-demangle
	DotFile                 string // -dot FILE: callgraph in dot format
	ForceRela               bool   // -force-rela
	Relocatable             bool   // -r (nvcc -r)
	Shared                  bool   // -shared (nvcc -shared)
	LineInfo                bool   // -lineinfo
	ReserveNullPointer      bool   // -reserve-null-pointer
	DontReserveNullPointer  bool   // -dont-reserve-null-pointer
	DisableSmemReservation  bool   // -disable-smem-reservation true|false
	SyscallConstOffset      int64  // -syscall-const-offset
	HostLinkerOptions       []string
	UUMN                    bool // -uumn (undocumented; accepted)

	// nvlink 12.x's LTO options (internal/cli/release.go), accepted and
	// ignored.
	Xnvvm                []string // -Xnvvm
	SplitCompile         int64    // -split-compile (1, nvlink 12.5's default, when not given)
	SplitCompileExtended int64    // -split-compile-extended (1 when not given)
	UidxFile             string   // -uidx
	// Release is the nvlink release whose command line this is (125; 0:
	// the inputs will choose, and releaseUses lists what only some
	// releases accept, for CheckRelease).
	Release     int
	releaseUses []releaseUse
	outputGiven bool // -o, even empty (-o=): Check's test
}

// kind is how an option takes its value.
type kind int

const (
	kBool   kind = iota // no value
	kString             // one value, taken whole
	kList               // comma-separated values, repeatable
	kEnum               // one value from a fixed set
	kNumber             // one integer (C strtol syntax)
	kTruth              // "true" or "false"
)

// option describes one command-line option.
type option struct {
	long, short string // names without dashes; either may be ""
	kind        kind
	arg         string   // value placeholder in --help
	values      []string // kEnum: allowed values
	help        string   // "" = hidden from --help
	joined      bool     // the short form accepts a glued value (-lfoo)
	// optional, when set, is the value the option takes when no value
	// follows it: none, or an option next (-ghls alone is -ghls lcs-abs).
	optional string
	set      func(c *Command, v string)
}

// maxOptionsFileDepth is how many options files nvlink keeps open at once.
const maxOptionsFileDepth = 15

// parser holds the state of one Parse call.
type parser struct {
	table    []option
	cmd      *Command
	bag      *diag.Bag
	readFile func(string) ([]byte, error)
	last     map[string]string // single-valued option -> its value so far
	given    []givenOption     // the options given, for nvlink 13.0's note (toolnote.go)
	depth    int
}

// Parse reads a command line (without the program name). readFile loads
// options files (-optf). Warnings are added to bag; the first fatal problem
// is returned as an error whose text is nvlink's message.
func Parse(args []string, readFile func(string) ([]byte, error), bag *diag.Bag) (*Command, error) {
	return ParseRelease(args, readFile, bag, "")
}

// ParseRelease is Parse for the nvlink release that --nvlink-version on
// the command line names, else env (WARPLINK_NVLINK_VERSION's value),
// else for any release (see release.go).
func ParseRelease(args []string, readFile func(string) ([]byte, error), bag *diag.Bag, env string) (*Command, error) {
	rel := releaseVersion(args, env)
	p := &parser{
		table:    releaseTable(options(), rel),
		cmd:      &Command{Opts: linkflags.Flags{Machine64: true}, SplitCompile: 1, SplitCompileExtended: 1},
		bag:      bag,
		readFile: readFile,
		last:     map[string]string{},
	}
	p.cmd.Release = rel
	if env != "" && p.cmd.Opts.NvlinkVersion == "" {
		p.cmd.Opts.NvlinkVersion = env
	}
	if err := p.parse(args); err != nil {
		return nil, err
	}
	p.cmd.Opts.ToolOptions = toolNoteOptions(p.given)
	return p.cmd, nil
}

// errf returns a fatal error with nvlink's message text.
func errf(format string, a ...any) error { return errors.New(fmt.Sprintf(format, a...)) }

func (p *parser) parse(args []string) error {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if len(arg) < 2 || arg[0] != '-' {
			p.cmd.Opts.Inputs = append(p.cmd.Opts.Inputs, arg)
			continue
		}
		o, value, hasValue, err := p.lookup(arg)
		if err != nil {
			return err
		}
		if o.kind == kBool {
			if hasValue {
				return errf("no argument expected after '%s'", optName(arg))
			}
			p.noteOption(o, "")
			o.set(p.cmd, "")
			continue
		}
		if !hasValue {
			switch next := i + 1; {
			case o.optional != "" && (next == len(args) || len(args[next]) >= 2 && args[next][0] == '-'):
				value = o.optional
			case next == len(args):
				return errf("argument expected after '%s'", arg)
			default:
				i++
				value = args[i]
			}
		}
		if o.long == "options-file" {
			if err := p.optionsFiles(value); err != nil {
				return err
			}
			continue
		}
		if err := p.apply(o, value); err != nil {
			return err
		}
	}
	return nil
}

// optName is arg up to its '='.
func optName(arg string) string {
	if k := strings.IndexByte(arg, '='); k >= 0 {
		return arg[:k]
	}
	return arg
}

// lookup finds the option an argument names: "--long", "-short", either
// with "=value", or a short option with a glued value ("-lm", "-m64").
func (p *parser) lookup(arg string) (o *option, value string, hasValue bool, err error) {
	long := strings.HasPrefix(arg, "--")
	body := arg[1:]
	if long {
		body = arg[2:]
	}
	name := body
	if k := strings.IndexByte(body, '='); k >= 0 {
		name, value, hasValue = body[:k], body[k+1:], true
	}
	for i := range p.table {
		t := &p.table[i]
		if (long && t.long == name && name != "") || (!long && t.short == name && name != "") {
			return t, value, hasValue, nil
		}
	}
	if !long {
		for i := range p.table {
			t := &p.table[i]
			if t.joined && strings.HasPrefix(body, t.short) {
				return t, body[len(t.short):], true, nil
			}
		}
	}
	return nil, "", false, errf("Unknown option '%s'", optName(arg[1:]))
}

// apply checks and stores one option value.
func (p *parser) apply(o *option, v string) error {
	display := o.long
	if display == "" {
		display = o.short
	}
	switch o.kind {
	case kList:
		for _, e := range strings.Split(v, ",") {
			p.noteOption(o, e)
			o.set(p.cmd, e)
		}
		return nil
	case kEnum:
		if !slices.Contains(o.values, v) {
			return errf("Value '%s' is not defined for option '%s'", v, display)
		}
	case kNumber:
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			return errf("'%s': expected a number", v)
		}
		if len(o.values) > 0 && !slices.Contains(o.values, strconv.FormatInt(n, 10)) {
			return errf("Value '%s' is not defined for option '%s'", v, display)
		}
	case kTruth:
		if v != "true" && v != "false" {
			return errf("'%s': expected true or false", v)
		}
	}
	if prev, ok := p.last[display]; ok && prev != v {
		p.bag.Warnf(diag.At(diag.PhaseInputs, 0, 0), "incompatible redefinition for option '%s', the last value of this option was used", display)
	}
	p.last[display] = v
	p.noteOption(o, v)
	o.set(p.cmd, v)
	return nil
}

// optionsFiles reads each comma-separated options file and parses its
// words in place.
func (p *parser) optionsFiles(list string) error {
	for _, name := range strings.Split(list, ",") {
		if p.depth >= maxOptionsFileDepth {
			return errf("Too many options file opened '%s'", name)
		}
		data, err := p.readFile(name)
		if err != nil {
			return errf("Could not open options file '%s'", name)
		}
		words, err := SplitOptionsFile(string(data))
		if err != nil {
			return err
		}
		p.depth++
		err = p.parse(words)
		p.depth--
		if err != nil {
			return err
		}
	}
	return nil
}

// SplitOptionsFile splits an options file into words the way nvlink does.
// Words are separated by unquoted, unescaped white space; '"' opens and
// closes quoting and '\' protects the next character. Each word is then
// unescaped ("\x" becomes "x"), stripped of the spaces and tabs that
// begin or end it (escaped ones: "\ a" reads "a", and a word of them
// only is none), and its unprotected '"' characters dropped, in that
// order, so `a\"b` reads "ab" but `a\\\"b` reads `a\"b`. A '\' that
// ends the file is refused as nvlink refuses it (its message names the
// NUL it escapes, which prints as nothing).
func SplitOptionsFile(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, inQuote := false, false
	word := func() {
		if w, ok := unquote(cur.String()); ok {
			words = append(words, w)
		}
		cur.Reset()
		in = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 == len(s):
			return nil, errf("Stray '' character")
		case c == '\\':
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			i++
			in = true
		case c == '"':
			inQuote = !inQuote
			cur.WriteByte(c)
			in = true
		case !inQuote && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'):
			if in {
				word()
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if inQuote {
		return nil, errf("Stray '\"' character")
	}
	if in {
		word()
	}
	return words, nil
}

// unquote removes one level of backslash escapes, then the spaces and
// tabs at either end (ok false when nothing is left: no word), then the
// '"' characters not preceded by a backslash.
func unquote(w string) (string, bool) {
	var a strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] == '\\' && i+1 < len(w) {
			i++
		}
		a.WriteByte(w[i])
	}
	u := strings.Trim(a.String(), " \t")
	if u == "" {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		switch {
		case u[i] == '\\' && i+1 < len(u):
			b.WriteByte(u[i])
			b.WriteByte(u[i+1])
			i++
		case u[i] != '"':
			b.WriteByte(u[i])
		}
	}
	return b.String(), true
}
