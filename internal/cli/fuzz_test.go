package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/warplink/warplink/internal/diag"
)

// quoteWords writes words as an options file that SplitOptionsFile reads
// back as words: each word's characters escaped, but spaces and tabs
// (which a word would lose at its ends) quoted, with the backslash
// before one when it has one; an empty word as "". (A word with a '"'
// that no '\' protects has no such spelling: SplitOptionsFile drops
// those.)
func quoteWords(words []string) string {
	var b strings.Builder
	for _, w := range words {
		if w == "" {
			b.WriteString(`""`)
		}
		for i := 0; i < len(w); i++ {
			c, pair := w[i], w[i] == '\\' && i+1 < len(w)
			if pair {
				i++
			}
			switch blank := w[i] == ' ' || w[i] == '\t'; {
			case pair && blank:
				b.WriteString(`"\\`)
				b.WriteByte(w[i])
				b.WriteByte('"')
			case pair:
				b.WriteString(`\\\`)
				b.WriteByte(w[i])
			case blank:
				b.WriteByte('"')
				b.WriteByte(c)
				b.WriteByte('"')
			default:
				b.WriteByte('\\')
				b.WriteByte(c)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// seedCommandLines adds the command lines of the crafted cases
// (testdata/crafted/*/link.args, one argument a line) and of the error
// cases to f, with add.
func seedCommandLines(f *testing.F, add func(args []string)) {
	paths, _ := filepath.Glob("../../testdata/crafted/*/link.args")
	if len(paths) < 20 {
		f.Fatalf("%d crafted command lines", len(paths))
	}
	for _, p := range paths[:20] {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		add(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
	}
	for _, c := range errorCases {
		add(c.args)
	}
}

// FuzzSplitOptionsFile checks that SplitOptionsFile never panics, fails
// only with nvlink's messages for an unclosed quote or a '\' ending the
// file, and reads the words
// it returns back from their quoted spelling (quoteWords).
func FuzzSplitOptionsFile(f *testing.F) {
	for _, c := range quoteCases {
		f.Add("-o " + c.in + "\n")
	}
	seedCommandLines(f, func(args []string) { f.Add(strings.Join(args, " ")) })
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitOptionsFile(s)
		if err != nil {
			if m := err.Error(); m != `Stray '"' character` && m != `Stray '' character` {
				t.Fatalf("error %q", err)
			}
			return
		}
		for _, w := range words {
			if len(w) > len(s) {
				t.Fatalf("word %q longer than the file", w)
			}
		}
		again, err := SplitOptionsFile(quoteWords(words))
		if err != nil || !slices.Equal(again, words) && len(again)+len(words) > 0 {
			t.Fatalf("words %q quoted read back as %q (%v)", words, again, err)
		}
	})
}

// nvlinkMessage matches the fatal messages of Parse, Check and
// CheckRelease: nvlink's, each with its own wording.
var nvlinkMessage = regexp.MustCompile(`^(?s:` + strings.Join([]string{
	`Conflicting options '.*' and '.*'`,
	`Input files are not allowed with -ghls option; use --help for more information`,
	`Unknown arch name '\(null\)'`,
	`Must specify output file with -o option`,
	`No input files specified; use option --help for more information`,
	`Link target of '.*' is virtual target that is not JIT-able; use 'sm_' target instead`,
	`-nvvmpath should be specified with -lto`,
	`Option '-m32' not supported for gpu architecture '.*'`,
	`--cuda-api-version value cannot be parsed`,
	`--cuda-api-version major number must be == toolkit version`,
	`no argument expected after '.*'`,
	`argument expected after '.*'`,
	`Unknown option '.*'`,
	`Value '.*' is not defined for option '.*'`,
	`'.*': expected a number`,
	`'.*': expected true or false`,
	`Too many options file opened '.*'`,
	`Could not open options file '.*'`,
	`Stray '"' character`,
	`Stray '' character`,
}, "|") + `)$`)

// commandResult is what a command line gives: the command (nil on a
// fatal error), the message and the warnings.
type commandResult struct {
	cmd    *Command
	msg    string
	diags  []diag.Diag
	opened bool // an options file was asked for
}

// parseCommand parses args for release env (as ParseRelease) with the
// options file "f" holding optf, then checks the command.
func parseCommand(args []string, optf, env string) commandResult {
	opened := false
	read := func(name string) ([]byte, error) {
		opened = true
		if name == "f" {
			return []byte(optf), nil
		}
		return nil, os.ErrNotExist
	}
	bag := &diag.Bag{}
	c, err := ParseRelease(args, read, bag, env)
	// (A command with -uidx opens the file it names: not checked.)
	if err == nil && !c.Help && !c.Version && c.UidxFile == "" {
		err = c.Check()
	}
	if err != nil {
		return commandResult{msg: err.Error(), diags: bag.Sorted(), opened: opened}
	}
	return commandResult{cmd: c, diags: bag.Sorted(), opened: opened}
}

// FuzzCommandLine checks that a command line (one argument a line) with
// an options file "f" (-optf f) never panics, fails only with one of
// nvlink's messages (nvlinkMessage), CheckRelease's included, parses the
// same twice, and parses as the same arguments given in an options file.
func FuzzCommandLine(f *testing.F) {
	seedCommandLines(f, func(args []string) {
		f.Add(strings.Join(args, "\n"), "", "")
		f.Add("-optf\nf", strings.Join(args, " "), "12.5")
	})
	f.Add("-arch=sm_90\n-o\nx\na.cubin\n-cuda-api-version\n 12.-1", "", "")
	f.Add("-arch=sm_90a\n-optf\nf,f", `-m 32 -o "x y" -Xnvvm -O3 a.cubin`, "")
	f.Fuzz(func(t *testing.T, line, optf, env string) {
		if !utf8.ValidString(line + optf + env) {
			return // (the messages are compared as text)
		}
		args := strings.Split(line, "\n")
		r := parseCommand(args, optf, env)
		if r.msg != "" && !nvlinkMessage.MatchString(r.msg) {
			t.Fatalf("message %q is not nvlink's", r.msg)
		}
		if r.cmd != nil {
			for _, rel := range []int{118, 124, 125, 130} {
				if m := r.cmd.CheckRelease(rel); m != "" && !nvlinkMessage.MatchString(m) {
					t.Fatalf("release %d: message %q is not nvlink's", rel, m)
				}
			}
		}
		if again := parseCommand(args, optf, env); !reflect.DeepEqual(again, r) {
			t.Fatalf("parsed differently twice")
		}
		// The same arguments read from an options file give the same
		// command, when they all have a spelling there (quoteWords), ask
		// for no options file themselves (nesting counts towards nvlink's
		// limit of 15) and do not name the release (--nvlink-version
		// chooses the option table from the command line only; one in an
		// options file has CheckRelease refuse what the release does not
		// accept, once the link has chosen it).
		q := quoteWords(args)
		if w, err := SplitOptionsFile(q); err != nil || !slices.Equal(w, args) || r.opened || strings.Contains(line, "nvlink-version") {
			return
		}
		via := parseCommand([]string{"-optf", "f"}, q, env)
		via.opened = false
		if !reflect.DeepEqual(via, r) {
			t.Fatalf("from an options file: %q, %+v; on the command line: %q, %+v", via.msg, via.cmd, r.msg, r.cmd)
		}
	})
}
