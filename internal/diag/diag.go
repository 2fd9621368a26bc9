// Package diag collects a link's diagnostics and prints them once, sorted,
// in nvlink's format ("nvlink error   : ..."), under the name the program
// was invoked as.
package diag

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// Severity orders diagnostics; higher is worse.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
	Fatal
	// Exit is a tool ending the process as nvlink's built-in ptxas ends
	// nvlink when given an informational option (-Xptxas --version):
	// its text goes to standard output, nothing after it is said, and
	// the status is 0 (Bag.Exit).
	Exit
)

// prefix is nvlink's severity word padded to 8 columns.
func (s Severity) prefix(promoted bool) string {
	switch s {
	case Info:
		return "info    "
	case Warning:
		return "warning "
	case Error:
		// A warning promoted by -Werror reads as a plain error (nvlink
		// 11.8; the wiki's "error*" prefix is not what it prints).
		return "error   "
	default:
		return "fatal   "
	}
}

// Key orders diagnostics deterministically, so that output does not
// depend on goroutine scheduling: (phase, major, minor), compared in
// turn; major and minor are mostly the file ID and a position in it.
type Key [3]int

// Phase is a Key's first component: the stage of the link whose checks
// raised the diagnostic. Diagnostics print in phase order, which is
// nvlink's order, not always the order warplink's passes run in.
type Phase int

const (
	// PhaseInputs: the command line, the release, the inputs as read and
	// compiled (major: the file ID; -1 before any input, -2 for LTO).
	PhaseInputs Phase = 0
	// PhaseResolve: symbol conflicts (major: the file folded).
	PhaseResolve Phase = 1
	// PhaseMerge: sections that cannot merge (major: the file ID).
	PhaseMerge Phase = 2
	// PhaseReports: the reports on the linked program: stack sizes
	// (major 0), the --dump-callgraph text (1), undefined references (2).
	PhaseReports Phase = 3
	// PhaseLimits: data over nvlink's limits (layout).
	PhaseLimits Phase = 4
	// PhaseVerbose: -v's statistics.
	PhaseVerbose Phase = 5
	// PhaseOutput: writing the output files (major: 0 the -o file, 1 the
	// --register-link-binaries file, 2 the output's size limit).
	PhaseOutput Phase = 9
)

// At is the key of a diagnostic of phase p at (major, minor).
func At(p Phase, major, minor int) Key { return Key{int(p), major, minor} }

// Diag is one message, ordered by its Key.
type Diag struct {
	Sev      Severity
	Promoted bool // a warning made an error by -Werror
	Key      Key
	Msg      string
	Verbatim bool // printed as it is, without the program name and severity
}

// Bag is a concurrency-safe collection of diagnostics.
type Bag struct {
	mu     sync.Mutex
	list   []Diag
	Werror bool // -Werror: warnings become errors
	NoWarn bool // -w: warnings are dropped
	// Suffix ends every message Print writes but verbatim text: nvlink's
	// -report-arch adds " (target: sm_XX)", which nvcc passes when it
	// device-links for several architectures.
	Suffix string
}

// Add records a message. Keys that tie keep insertion order.
func (b *Bag) Add(sev Severity, key Key, format string, a ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d := Diag{Sev: sev, Key: key, Msg: fmt.Sprintf(format, a...)}
	if sev == Warning {
		if b.NoWarn {
			return
		}
		if b.Werror {
			d.Sev, d.Promoted = Error, true
		}
	}
	b.list = append(b.list, d)
}

// Text records a block of text printed as it is at key's place among the
// diagnostics (nvlink's --dump-callgraph report goes to the same stream).
func (b *Bag) Text(key Key, text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.list = append(b.list, Diag{Sev: Info, Key: key, Msg: text, Verbatim: true})
}

// Errorf, Warnf, Infof and Fatalf are Add with a severity.
func (b *Bag) Errorf(key Key, format string, a ...any) { b.Add(Error, key, format, a...) }
func (b *Bag) Warnf(key Key, format string, a ...any)  { b.Add(Warning, key, format, a...) }
func (b *Bag) Infof(key Key, format string, a ...any)  { b.Add(Info, key, format, a...) }
func (b *Bag) Fatalf(key Key, format string, a ...any) { b.Add(Fatal, key, format, a...) }

// Exit records that a tool ended the link at key, printing text to
// standard output (Bag.ExitText; see Severity Exit).
func (b *Bag) Exit(key Key, text string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.list = append(b.list, Diag{Sev: Exit, Key: key, Msg: text, Verbatim: true})
}

// ExitText is the text of the Exit that ended the link, when one comes
// before any fatal diagnostic in key order.
func (b *Bag) ExitText() (string, bool) {
	for _, d := range b.Sorted() {
		switch d.Sev {
		case Exit:
			return d.Msg, true
		case Fatal:
			return "", false
		}
	}
	return "", false
}

// Failed reports whether an error or fatal diagnostic (or an Exit) was
// recorded.
func (b *Bag) Failed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range b.list {
		if d.Sev >= Error {
			return true
		}
	}
	return false
}

// Recorded returns the diagnostics in the order they were recorded.
func (b *Bag) Recorded() []Diag {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Diag(nil), b.list...)
}

// Append records d as it is (its severity already settled by the bag it
// was first recorded in: see Add).
func (b *Bag) Append(d Diag) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.list = append(b.list, d)
}

// Sorted returns the diagnostics in key order (stable).
func (b *Bag) Sorted() []Diag {
	b.mu.Lock()
	out := append([]Diag(nil), b.list...)
	b.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool {
		for k := 0; k < 3; k++ {
			if out[i].Key[k] != out[j].Key[k] {
				return out[i].Key[k] < out[j].Key[k]
			}
		}
		return false
	})
	return out
}

// Print writes the diagnostics as "<prog> <severity>: <msg>", in key
// order, up to the first fatal one or Exit: nvlink exits there, so it
// says nothing that would come after (two bad inputs: only the first is
// named). An Exit's own text is for standard output (ExitText).
func (b *Bag) Print(w io.Writer, prog string) {
	for _, d := range b.Sorted() {
		if d.Sev == Exit {
			return
		}
		if d.Verbatim {
			io.WriteString(w, d.Msg)
			continue
		}
		fmt.Fprintf(w, "%s %s: %s%s\n", prog, d.Sev.prefix(d.Promoted), d.Msg, b.Suffix)
		if d.Sev == Fatal {
			return
		}
	}
}

// ExitCode is nvlink's exit status for what was recorded: 1 after a fatal
// diagnostic, 255 after errors, 0 otherwise; 0 where an Exit comes first
// in key order, before any fatal one.
func (b *Bag) ExitCode() int {
	code := 0
	for _, d := range b.Sorted() {
		switch d.Sev {
		case Exit:
			return 0
		case Fatal:
			return 1
		case Error:
			code = 255
		}
	}
	return code
}
