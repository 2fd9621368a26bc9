package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestNvlinkRules: every registry entry has its paragraph and names cases
// that exist under testdata (a directory with link.args); where an entry
// says what its cases show, the first case's nvlink output (ref.cubin or
// ref.log) holds it. Every keepPolicy field has its entry.
func TestNvlinkRules(t *testing.T) {
	names := map[string]bool{}
	for _, r := range nvlinkRules() {
		if names[r.Name] {
			t.Errorf("%s: listed twice", r.Name)
		}
		names[r.Name] = true
		if r.Rule == "" || len(r.Cases) == 0 {
			t.Errorf("%s: no paragraph or no case", r.Name)
		}
		for _, c := range r.Cases {
			if !strings.HasPrefix(c, "crafted/") && !strings.HasPrefix(c, "corpus/") {
				t.Errorf("%s: case %s is neither crafted/ nor corpus/", r.Name, c)
			}
			if _, err := os.Stat(filepath.Join("../testdata", c, "link.args")); err != nil {
				t.Errorf("%s: case %s: %v", r.Name, c, err)
			}
		}
		if r.Shows == "" || len(r.Cases) == 0 {
			continue
		}
		dir := filepath.Join("../testdata", r.Cases[0])
		var found bool
		for _, f := range []string{"ref.cubin", "ref.log"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			found = found || err == nil && bytes.Contains(b, []byte(r.Shows))
		}
		if !found {
			t.Errorf("%s: %s's ref.cubin and ref.log do not hold %q", r.Name, r.Cases[0], r.Shows)
		}
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(keepPolicy{})) {
		if !names["keepPolicy."+f.Name] {
			t.Errorf("keepPolicy.%s has no registry entry", f.Name)
		}
	}
}

// TestKeepPolicyMatrix: what -g and --preserve-relocs keep, for each
// release, as nvlinkRules and the fields' comments say.
func TestKeepPolicyMatrix(t *testing.T) {
	const (
		plain    = ""
		either   = "EveryFunction UncalledPrototypes Placeholder SharedSyms ExternSharedSym"
		debug    = either + " EveryKernelUsed ExternSharedAtOffset"
		preserve = either + " SharedInternal EntrySharedSym EntrySharedInternal InternalData ExternSharedPastWindow ResolvedRelocs"
		both     = either + " EveryKernelUsed ExternSharedAtOffset EntrySharedSym EntrySharedInternal InternalData ResolvedRelocs"
		// nvlink 12.5 and 13.0 leave that symbol's st_other 0 under both
		// (Release.DebugSharedNotInternal).
		both125 = either + " EveryKernelUsed ExternSharedAtOffset EntrySharedSym InternalData ResolvedRelocs"
	)
	for _, c := range []struct {
		rel             *Release
		debug, preserve bool
		kept            string
	}{
		{&nvlink118, false, false, plain},
		{&nvlink118, true, false, debug},
		{&nvlink118, false, true, preserve},
		{&nvlink118, true, true, both},
		// nvlink 12.5 and 13.0 keep a module shared variable one entry
		// uses under -g alone too (Release.DebugEntryShared).
		{&nvlink125, false, false, plain},
		{&nvlink125, true, false, debug + " EntrySharedSym"},
		{&nvlink125, false, true, preserve},
		{&nvlink125, true, true, both125},
		{&nvlink130, false, false, plain},
		{&nvlink130, true, false, debug + " EntrySharedSym"},
		{&nvlink130, false, true, preserve},
		{&nvlink130, true, true, both125},
	} {
		k := reflect.ValueOf(keepPolicyFor(c.debug, c.preserve, c.rel))
		want := strings.Fields(c.kept)
		for _, f := range reflect.VisibleFields(k.Type()) {
			if got := k.FieldByIndex(f.Index).Bool(); got != slices.Contains(want, f.Name) {
				t.Errorf("nvlink %s, -g %v, --preserve-relocs %v: %s = %v", c.rel.Name, c.debug, c.preserve, f.Name, got)
			}
		}
	}
}
