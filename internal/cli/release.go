package cli

import (
	"slices"
	"strings"

	"github.com/warplink/warplink/internal/linkflags"
)

// The command line of each nvlink release. nvlink 12.x (checked against
// nvlink 12.5's --help and messages) differs from 11.8's table (table.go):
// -Xnvvm, -split-compile, -split-compile-extended and -uidx are new;
// -m accepts only 64; -arch drops the 35 and 37
// names and adds sm_90a, compute_90a and lto_90a. nvlink 13.0 is taken to
// parse as 12.5 does (no 13.0 toolkit to check it against here).
//
// The release is the one --nvlink-version (or WARPLINK_NVLINK_VERSION)
// names; without either it is known only once the inputs are read
// (merge/release.go), so the command line is then parsed by the union of
// the tables, every use
// of something only some releases accept is noted (Command.releaseUses),
// and Command.CheckRelease refuses it, in that release's words, once the
// release is chosen.

// releaseUse is a use of an option or value that only some releases
// accept: from release from (125) up to before release to (0: no end).
type releaseUse struct {
	from, to int
	msg      string // the fatal message of a release that refuses it
}

// archNames are -arch's values for nvlink of version rel (0: every
// release's).
func archNames(rel int) []string {
	all := archValues
	v := make([]string, 0, len(all)+3) // (+3: the 90a names)
	for _, a := range all {
		n := a[strings.IndexByte(a, '_')+1:] // (the number: TrimLeft's set cost a tenth of a parse)
		if rel >= 120 && (n == "35" || n == "37") {
			continue
		}
		v = append(v, a)
		if rel != 118 && strings.HasSuffix(a, "_90") {
			v = append(v, a+"a")
		}
	}
	return v
}

// releaseVersion reads the release that --nvlink-version names on the
// command line (the last one), else env's value: 125 for "12.5" (or
// "125"; linkflags.ParseVersion), 0 when neither names one (the inputs
// will choose) or the name is no release number (which merge refuses).
func releaseVersion(args []string, env string) int {
	v := env
	for i, a := range args {
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "nvlink-version" {
			continue
		}
		if !hasVal && i+1 < len(args) {
			val = args[i+1]
		}
		v = val
	}
	n, _ := linkflags.ParseVersion(v)
	return n
}

// releaseTable is table (nvlink 11.8's) as nvlink of version rel parses
// (0: the union of the releases', see above).
func releaseTable(table []option, rel int) []option {
	later := func(name string) func(c *Command) {
		return func(c *Command) {
			c.releaseUses = append(c.releaseUses, releaseUse{from: 120, msg: "Unknown option '" + name + "'"})
		}
	}
	for i := range table {
		o := &table[i]
		switch o.long {
		case "arch":
			o.values = archNames(rel)
			if rel == 0 {
				set := o.set
				o.set = func(c *Command, v string) {
					set(c, v)
					switch n := strings.TrimLeft(v, "compute_lto_sm"); n {
					case "35", "37":
						c.releaseUses = append(c.releaseUses, releaseUse{to: 120, msg: "Value '" + v + "' is not defined for option 'arch'"})
					case "90a":
						c.releaseUses = append(c.releaseUses, releaseUse{from: 120, msg: "Value '" + v + "' is not defined for option 'arch'"})
					}
				}
			}
		case "machine":
			if rel >= 120 {
				o.values = []string{"64"}
				o.help = "Specify 64 bit architecture (default 64)."
			} else {
				set := o.set
				o.set = func(c *Command, v string) {
					set(c, v)
					if num(v) != 64 {
						c.releaseUses = append(c.releaseUses, releaseUse{to: 120, msg: "Value '" + v + "' is not defined for option 'machine'"})
					}
				}
			}
		case "Xptxas":
			o.arg = "<options>,..."
		}
	}
	own := option{long: "nvlink-version", kind: kString, arg: "<version>",
		help: "warplink: link as this nvlink release (11.8, 12.4, 12.5, 13.0; default: that of the toolkit the newest input was built with).",
		set:  func(c *Command, v string) { c.Opts.NvlinkVersion = v }}
	table = insertBefore(slices.Grow(table, 5), "time", own) // (room for every insertion: the table is copied once)
	if rel == 118 {
		return table
	}
	news := []struct {
		before string
		o      option
	}{
		{"Xptxas", option{long: "Xnvvm", short: "Xnvvm", kind: kList, arg: "<options>,...",
			help: "Nvvm options (only used with LTO).",
			set:  func(c *Command, v string) { c.Xnvvm = append(c.Xnvvm, v) }}},
		{"suppress-arch-warning", option{long: "split-compile", short: "split-compile", kind: kNumber, arg: "<amount>",
			help: "Max threads nvvm can use for split compilation (only used with LTO).",
			set:  func(c *Command, v string) { c.SplitCompile = num(v) }}},
		{"suppress-arch-warning", option{long: "split-compile-extended", short: "split-compile-extended", kind: kNumber, arg: "<amount>",
			help: "Max threads the linker can use for extended split compilation (only used with LTO).",
			set:  func(c *Command, v string) { c.SplitCompileExtended = num(v) }}},
		{"use-host-info", option{long: "uidx-file", short: "uidx", kind: kString, arg: "<file>",
			help: "Path to uidx file (ignored).",
			set:  func(c *Command, v string) { c.UidxFile = v }}},
	}
	for _, n := range news {
		if rel == 0 {
			set, name := n.o.set, n.o.short
			n.o.set = func(c *Command, v string) { set(c, v); later(name)(c) }
		}
		table = insertBefore(table, n.before, n.o)
	}
	return table
}

// insertBefore inserts o into table before the option named before (at
// the end when there is none), keeping --help's order.
func insertBefore(table []option, before string, o option) []option {
	i := slices.IndexFunc(table, func(t option) bool { return t.long == before })
	if i < 0 {
		i = len(table)
	}
	return slices.Insert(table, i, o)
}

// CheckRelease refuses, in the words of nvlink of version rel (125), the
// first option or value of the command line that release does not accept
// (a command line parsed before the release was known: releaseTable);
// "" when there is none.
func (c *Command) CheckRelease(rel int) string {
	for _, u := range c.releaseUses {
		if rel < u.from || u.to != 0 && rel >= u.to {
			return u.msg
		}
	}
	return ""
}
