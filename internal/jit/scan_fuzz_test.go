package jit

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/diag"
)

// parseHostRefs reads back a host reference file (hostRefs): its lines by
// name ("EK", ...), each "NAME: " and then entries "<len>:<pattern> " (the
// length says where a pattern ends, whatever it holds) up to a newline;
// ok false when the text is not in that form.
func parseHostRefs(s string) (map[string][]string, bool) {
	lines := map[string][]string{}
	for s != "" {
		if len(s) < 4 || s[2:4] != ": " || lines[s[:2]] != nil {
			return nil, false
		}
		name := s[:2]
		for s = s[4:]; s != "" && s[0] != '\n'; {
			n, after, ok := strings.Cut(s, ":")
			k, err := strconv.Atoi(n)
			if !ok || err != nil || k <= 0 || k >= len(after) || after[k] != ' ' {
				return nil, false
			}
			lines[name] = append(lines[name], after[:k])
			s = after[k+1:]
		}
		if s == "" || len(lines[name]) == 0 {
			return nil, false
		}
		s = s[1:]
	}
	return lines, true
}

// FuzzHostItem checks the LTO scan of a host object (hostItem, classify):
// it never panics, decodes the same twice, takes the same kind whether or
// not it decodes the IR (but for IR it cannot decode, which leaves the
// kind of the other members), keeps no NUL at the
// end of the PTX it picks, merges the IR member's libnvvm options with
// themselves without a mismatch, and the host reference file built from the
// object (hostRefs) reads back as the object's patterns, last first.
func FuzzHostItem(f *testing.F) {
	var paths []string
	for _, g := range []string{"../../testdata/jit/hostref/*.o", "../../testdata/jit/bad/*.o", "../../testdata/crafted/host-info*/*.o"} {
		m, _ := filepath.Glob(g)
		paths = append(paths, m...)
	}
	if len(paths) < 10 {
		f.Fatalf("%d seed objects", len(paths))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(80))
	}
	f.Fuzz(func(t *testing.T, b []byte, arch uint8) {
		kind, ok := hostItem("x.o", b, int(arch), scanKind)
		full, fok := hostItem("x.o", b, int(arch), scanIR|scanPTX)
		again, aok := hostItem("x.o", b, int(arch), scanIR|scanPTX)
		if ok != fok || fok != aok || !reflect.DeepEqual(full, again) {
			t.Fatal("the scan differs between runs")
		}
		if !ok {
			return
		}
		// (IR that does not decode leaves the input to be what its other
		// members make it.)
		if kind.kind != full.kind && !(kind.kind == itemIR && full.ir == nil) || full.kind == itemIR && full.ir == nil {
			t.Fatalf("kind %d when scanning names and kinds, %d when decoding", kind.kind, full.kind)
		}
		if bytes.HasSuffix(full.ptx, []byte{0}) {
			t.Fatal("the PTX ends with a NUL")
		}
		if full.kind == itemIR {
			// The member's libnvvm options, from its header, agree with
			// themselves.
			l := &LTO{Options: Options{Arch: int(arch)}}
			var bag diag.Bag
			opts, _, err := l.nvvmOptions(&rules118, []item{full, full}, false, false, &bag, func() diag.Key { return diag.Key{} })
			if err != nil || bag.Failed() || len(opts) == 0 || opts[0] != "-arch=compute_"+strconv.Itoa(int(arch)) {
				t.Fatalf("libnvvm options %q of member options %q: %v", opts, full.opts, bag.Sorted())
			}
		}
		var refs []byte
		if lists, ok := hostRefs([]item{full}, nil, nil); ok {
			refs = hostRefFile(lists)
		}
		lines, ok := parseHostRefs(string(refs))
		if !ok {
			t.Fatalf("host reference file %q is not in its form", refs)
		}
		for _, k := range []struct{ line, sec string }{
			{"EK", ".nvHRKE"}, {"IK", ".nvHRKI"}, {"EC", ".nvHRCE"}, {"IC", ".nvHRCI"}, {"EG", ".nvHRDE"}, {"IG", ".nvHRDI"},
		} {
			var want []string
			for _, p := range bytes.Split(full.host[k.sec], []byte{0}) {
				if len(p) > 0 {
					want = append(want, string(p))
				}
			}
			slices.Reverse(want)
			if refs != nil && !slices.Equal(lines[k.line], want) {
				t.Fatalf("line %s: %q, want %q", k.line, lines[k.line], want)
			}
		}
	})
}
