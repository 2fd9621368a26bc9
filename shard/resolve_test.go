package shard

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fold resolves cs in order and renders the diagnostics nvlink-style.
func fold(name string, files []string, cs []Cand) (Sym, []string) {
	s := NewSym(cs[0])
	var msgs []string
	for _, c := range cs[1:] {
		o := Resolve(s, c)
		for _, d := range o.Diags[:o.NDiag] {
			switch d.Code.Files() {
			case 0:
				msgs = append(msgs, fmt.Sprintf(d.Code.Format(), name))
			case 1:
				msgs = append(msgs, fmt.Sprintf(d.Code.Format(), name, files[d.File]))
			default:
				msgs = append(msgs, fmt.Sprintf(d.Code.Format(), name, files[d.File], files[d.First]))
			}
		}
		s = o.Sym
	}
	return s, msgs
}

// TestResolveNvlink11 replays links run with the real CUDA 11.8 nvlink on
// cubins assembled from PTX (ptxas -c, sm_90 unless noted). Each object
// defines or references x (4 or 8 bytes) or f; the expected messages are
// nvlink's stderr, and the final state is read from the output's symtab.
func TestResolveNvlink11(t *testing.T) {
	obj := nvlink11Objects()
	for _, cases := range [][]nvlinkCase{nvlink11DataCases(), nvlink11FuncCases(), nvlink11SpaceCases()} {
		for _, tt := range cases {
			checkNvlinkCase(t, obj, tt)
		}
	}
}

// The nvlink messages of the cases, their arguments after the name
// written as ":file:first" (filled in by checkNvlinkCase).
const (
	nvMdef  = "Multiple definition of '%s' in '%s.cubin', first defined in '%s.cubin'"
	nvSize  = "Size doesn't match for '%s' in '%s.cubin', first specified in '%s.cubin'"
	nvSpace = "Memory space doesn't match for '%s' in '%s.cubin', first specified in '%s.cubin'"
	nvComm  = "Common symbol '%s' in file '%s.cubin' has larger size than initialization"
	nvMan   = "Managed attribute doesn't match for '%s' in '%s.cubin', first specified in '%s.cubin'"
	nvEnt   = "Function '%s' not declared __global__ in all source files"
)

// nvlinkCase is one link replayed with nvlink: its objects in command-line
// order (names from nvlink11Objects) and what nvlink did.
type nvlinkCase struct {
	link   string
	msgs   []string // nvlink's error lines, "x"/"f" filled in below
	weak   bool     // binding of the output symbol (successful links)
	size   uint64
	winner string // object whose definition (or common) stands
}

// nvlink11Objects are the objects the cases link, by name.
func nvlink11Objects() map[string]Cand {
	const g = 1 // .nv.global memory space (st_other 0x20)
	const c = 4 // constant memory (st_other 0x80)
	return map[string]Cand{
		"com4":   {Kind: Common, Space: g, Size: 4},
		"com4b":  {Kind: Common, Space: g, Size: 4},
		"com8":   {Kind: Common, Space: g, Size: 8},
		"init4":  {Kind: Defined, Init: true, Space: g, Size: 4},
		"init8":  {Kind: Defined, Init: true, Space: g, Size: 8},
		"bss4":   {Kind: Defined, Space: g, Size: 4},
		"bss4b":  {Kind: Defined, Space: g, Size: 4},
		"bss4c":  {Kind: Defined, Space: g, Size: 4},
		"weak4":  {Kind: Defined, Weak: true, Space: g, Size: 4},
		"weak4b": {Kind: Defined, Weak: true, Space: g, Size: 4},
		"weak8":  {Kind: Defined, Weak: true, Space: g, Size: 8},
		"ext":    {Kind: Undef, Space: g, Size: 4},
		"ext8":   {Kind: Undef, Space: g, Size: 8},
		// extern __device__ float t[]; (no size): sweep program
		// extern-unsized, nvcc 11.8 output.
		"ext0": {Kind: Undef, Space: g},
		// Functions named f; "xd" is a 4-byte global variable named f.
		"wfs":  {Kind: Defined, Weak: true, Func: true, Size: 256},
		"wfs2": {Kind: Defined, Weak: true, Func: true, Size: 256},
		"wfb":  {Kind: Defined, Weak: true, Func: true, Size: 640},
		"gfs":  {Kind: Defined, Func: true, Size: 256},
		"gfb":  {Kind: Defined, Func: true, Size: 640},
		"uf":   {Kind: Undef, Func: true},
		"xd":   {Kind: Defined, Space: g, Size: 4},
		// sm_80: the register count sits in the .text section's sh_info.
		"big70":   {Kind: Defined, Weak: true, Func: true, Size: 640, RegCount: 54},
		"small78": {Kind: Defined, Weak: true, Func: true, Size: 256, RegCount: 24},
		"a70":     {Kind: Defined, Weak: true, Func: true, Size: 256, RegCount: 24},
		"b78":     {Kind: Defined, Weak: true, Func: true, Size: 256, RegCount: 24},
		"big78":   {Kind: Defined, Weak: true, Func: true, Size: 640, RegCount: 54},
		// Memory spaces and __managed__, from nvcc 11.8 -rdc cubins of
		// one-line programs: __device__ int v = 1 (as init4),
		// __device__ int v (as bss4), __device__ long v = 1 (as init8),
		// __constant__ int v = 2 (con4), __constant__ long v = 1 (con8),
		// __managed__ int v = 3 (man4), and the extern declarations of
		// __constant__ int, __constant__ long, __device__ int and
		// __managed__ int (excon4, excon8, ext, exman4).
		"con4":   {Kind: Defined, Space: c, Size: 4},
		"con8":   {Kind: Defined, Space: c, Size: 8},
		"man4":   {Kind: Defined, Init: true, Space: g, Other: OtherManaged, Size: 4},
		"excon4": {Kind: Undef, Space: c, Size: 4},
		"excon8": {Kind: Undef, Space: c, Size: 8},
		"exman4": {Kind: Undef, Space: g, Other: OtherManaged, Size: 4},
		// extern "C" functions f of nvcc 11.8 -rdc cubins: a kernel
		// (kern), beside a device function (as gfs) and a device
		// function's declaration (as uf).
		"kern": {Kind: Defined, Func: true, Other: OtherEntry, Size: 256},
	}
}

// nvlink11DataCases link variables: common, initialised, zero-filled,
// weak and extern ones of 4 and 8 bytes.
func nvlink11DataCases() []nvlinkCase {
	return []nvlinkCase{
		{"com4 com8", nil, false, 8, "com4"},
		{"com8 com4", nil, false, 8, "com8"},
		{"com4 init4", nil, false, 4, "init4"},
		{"init4 com4", nil, false, 4, "init4"},
		{"com4 init8", nil, false, 8, "init8"},
		{"init8 com4", nil, false, 8, "init8"},
		{"com8 init4", []string{nvComm + ":com8"}, false, 4, "init4"},
		{"init4 com8", []string{nvComm + ":com8"}, false, 4, "init4"},
		{"com4 bss4", nil, false, 4, "bss4"},
		{"bss4 com4", []string{nvMdef + ":com4:bss4"}, false, 4, "bss4"},
		{"bss4 com8", []string{nvSize + ":com8:bss4", nvMdef + ":com8:bss4"}, false, 4, "bss4"},
		{"com8 bss4", []string{nvSize + ":bss4:com8"}, false, 4, "bss4"},
		{"bss4 bss4b", []string{nvMdef + ":bss4b:bss4"}, false, 4, "bss4"},
		{"bss4 init4", []string{nvMdef + ":init4:bss4"}, false, 4, "bss4"},
		{"bss4 bss4b bss4c", []string{nvMdef + ":bss4b:bss4", nvMdef + ":bss4c:bss4"}, false, 4, "bss4"},
		{"weak4 weak4b", nil, true, 4, "weak4"},
		{"weak4 weak8", []string{nvSize + ":weak8:weak4"}, true, 4, "weak4"},
		{"weak8 weak4", []string{nvSize + ":weak4:weak8"}, true, 8, "weak8"},
		{"weak4 bss4", nil, false, 4, "bss4"},
		{"bss4 weak4", nil, false, 4, "bss4"},
		{"bss4 weak8", []string{nvSize + ":weak8:bss4"}, false, 4, "bss4"},
		{"weak8 bss4", []string{nvSize + ":bss4:weak8"}, false, 4, "bss4"},
		{"weak4 init4", nil, false, 4, "init4"},
		{"init4 weak4", nil, false, 4, "init4"},
		{"init4 weak8", []string{nvSize + ":weak8:init4"}, false, 4, "init4"},
		{"weak4 com4", nil, true, 4, "com4"},
		{"com4 weak4", nil, false, 4, "com4"},
		{"weak4 com8", []string{nvSize + ":com8:weak4"}, true, 8, "com8"},
		{"com8 weak4", []string{nvSize + ":weak4:com8"}, false, 8, "com8"},
		{"com4 weak8", []string{nvSize + ":weak8:com4"}, false, 4, "com4"},
		{"weak4 com4 com8", nil, true, 8, "com4"},
		{"weak4 com4 weak4b", nil, true, 4, "com4"},
		{"weak4 com4 bss4", nil, false, 4, "bss4"},
		{"weak4 com4 init4", nil, false, 4, "init4"},
		{"ext bss4", nil, false, 4, "bss4"},
		{"bss4 ext", nil, false, 4, "bss4"},
		{"ext com8", []string{nvSize + ":com8:ext"}, false, 8, "com8"},
		{"com8 ext", []string{nvSize + ":ext:com8"}, false, 8, "com8"},
		{"ext ext8", []string{nvSize + ":ext8:ext"}, false, 4, "ext"},
		{"ext8 bss4", []string{nvSize + ":bss4:ext8"}, false, 4, "bss4"},
		{"bss4 ext8", []string{nvSize + ":ext8:bss4"}, false, 4, "bss4"},
		{"ext0 bss4", nil, false, 4, "bss4"},
		{"bss4 ext0", nil, false, 4, "bss4"},
		{"weak4 ext", nil, true, 4, "weak4"},
		{"ext weak4", nil, true, 4, "weak4"},
		{"ext bss4 bss4b", []string{nvMdef + ":bss4b:ext"}, false, 4, "bss4"},
		{"ext weak4 bss4 bss4b", []string{nvMdef + ":bss4b:ext"}, false, 4, "bss4"},
		{"weak4 bss4 bss4b", []string{nvMdef + ":bss4b:weak4"}, false, 4, "bss4"},
		{"com4 bss4 bss4b", []string{nvMdef + ":bss4b:com4"}, false, 4, "bss4"},
		{"com4 com4b bss4 bss4b", []string{nvMdef + ":bss4b:com4"}, false, 4, "bss4"},
		{"weak4 com4 bss4 bss4b", []string{nvMdef + ":bss4b:com4"}, false, 4, "bss4"},
	}
}

// nvlink11FuncCases link functions named f (and a variable f), with
// register counts on sm_80.
func nvlink11FuncCases() []nvlinkCase {
	return []nvlinkCase{
		{"wfs wfb", nil, true, 256, "wfs"},
		{"wfb wfs", nil, true, 640, "wfb"}, // sm_90: no register count, first stays
		{"wfs wfs2", nil, true, 256, "wfs"},
		{"uf wfb wfs", nil, true, 640, "wfb"},
		{"wfs gfb", nil, false, 640, "gfb"},
		{"gfb wfs", nil, false, 640, "gfb"},
		{"gfs gfb", []string{nvMdef + ":gfb:gfs"}, false, 256, "gfs"},
		{"uf gfs gfb", []string{nvMdef + ":gfb:gfs"}, false, 256, "gfs"},
		{"wfs gfs gfb", []string{nvMdef + ":gfb:wfs"}, false, 256, "gfs"},
		{"uf wfs gfs gfb", []string{nvMdef + ":gfb:wfs"}, false, 256, "gfs"},
		{"xd gfs", []string{nvSpace + ":gfs:xd", nvMdef + ":gfs:xd"}, false, 4, "xd"},
		{"gfs xd", []string{nvSpace + ":xd:gfs", nvSize + ":xd:gfs", nvMdef + ":xd:gfs"}, false, 256, "gfs"},
		{"wfs xd", []string{nvSpace + ":xd:wfs", nvSize + ":xd:wfs"}, false, 4, "xd"},
		{"xd wfs", []string{nvSpace + ":wfs:xd"}, false, 4, "xd"},
		// sm_80, with register counts: fewer registers wins either way;
		// the PTX version is not recorded in a cubin, so ties keep the first.
		{"big70 small78", nil, true, 256, "small78"},
		{"small78 big70", nil, true, 256, "small78"},
		{"big78 a70", nil, true, 256, "a70"},
		{"a70 big78", nil, true, 256, "a70"},
		{"a70 b78", nil, true, 256, "a70"},
		{"b78 a70", nil, true, 256, "b78"},
	}
}

// nvlink11SpaceCases link variables of different memory spaces and
// __managed__ attributes, and a kernel with a device function.
func nvlink11SpaceCases() []nvlinkCase {
	return []nvlinkCase{
		// Memory spaces and __managed__: the space first, then the
		// attribute, the nvSize, the definitions; declarations compared too.
		{"init4 excon4", []string{nvSpace + ":excon4:init4"}, false, 0, ""},
		{"excon4 init4", []string{nvSpace + ":init4:excon4"}, false, 0, ""},
		{"con4 ext", []string{nvSpace + ":ext:con4"}, false, 0, ""},
		{"ext con4", []string{nvSpace + ":con4:ext"}, false, 0, ""},
		{"excon4 ext", []string{nvSpace + ":ext:excon4"}, false, 0, ""},
		{"con4 bss4", []string{nvSpace + ":bss4:con4", nvMdef + ":bss4:con4"}, false, 0, ""},
		{"bss4 con4", []string{nvSpace + ":con4:bss4", nvMdef + ":con4:bss4"}, false, 0, ""},
		{"init4 bss4", []string{nvMdef + ":bss4:init4"}, false, 0, ""},
		{"init8 con4", []string{nvSpace + ":con4:init8", nvSize + ":con4:init8", nvMdef + ":con4:init8"}, false, 0, ""},
		{"con8 init4", []string{nvSpace + ":init4:con8", nvSize + ":init4:con8", nvMdef + ":init4:con8"}, false, 0, ""},
		{"excon8 init4", []string{nvSpace + ":init4:excon8", nvSize + ":init4:excon8"}, false, 0, ""},
		{"init4 excon8", []string{nvSpace + ":excon8:init4", nvSize + ":excon8:init4"}, false, 0, ""},
		{"excon4 excon8", []string{nvSize + ":excon8:excon4"}, false, 0, ""},
		{"init4 man4", []string{nvMan + ":man4:init4", nvMdef + ":man4:init4"}, false, 0, ""},
		{"man4 init4", []string{nvMan + ":init4:man4", nvMdef + ":init4:man4"}, false, 0, ""},
		{"bss4 man4", []string{nvMan + ":man4:bss4", nvMdef + ":man4:bss4"}, false, 0, ""},
		{"con4 man4", []string{nvSpace + ":man4:con4", nvMan + ":man4:con4", nvMdef + ":man4:con4"}, false, 0, ""},
		{"man4 con4", []string{nvSpace + ":con4:man4", nvMan + ":con4:man4", nvMdef + ":con4:man4"}, false, 0, ""},
		{"excon4 man4", []string{nvSpace + ":man4:excon4", nvMan + ":man4:excon4"}, false, 0, ""},
		{"init4 exman4", []string{nvMan + ":exman4:init4"}, false, 0, ""},
		{"exman4 init4", []string{nvMan + ":init4:exman4"}, false, 0, ""},
		{"exman4 ext", []string{nvMan + ":ext:exman4"}, false, 0, ""},
		{"ext exman4", []string{nvMan + ":exman4:ext"}, false, 0, ""},
		{"exman4 man4", nil, false, 4, "man4"},
		{"man4 exman4", nil, false, 4, "man4"},
		// A kernel and a device function of one name.
		{"kern gfs", []string{nvEnt, nvMdef + ":gfs:kern"}, false, 0, ""},
		{"gfs kern", []string{nvEnt, nvMdef + ":kern:gfs"}, false, 0, ""},
		{"kern uf", []string{nvEnt}, false, 0, ""},
		{"uf kern", []string{nvEnt}, false, 0, ""},
		{"gfs uf", nil, false, 256, "gfs"},
		{"uf gfs", nil, false, 256, "gfs"},
	}
}

// checkNvlinkCase folds tt's objects and compares the messages and, for
// a link that succeeded, the standing symbol with nvlink's.
func checkNvlinkCase(t *testing.T, obj map[string]Cand, tt nvlinkCase) {
	t.Helper()
	files := strings.Fields(tt.link)
	cs := make([]Cand, len(files))
	sym := "x"
	for i, f := range files {
		c, ok := obj[f]
		if !ok {
			t.Fatalf("%s: unknown object %s", tt.link, f)
		}
		if c.Func || f == "xd" {
			sym = "f"
		}
		c.File, c.Index = int32(i), int32(10+i)
		cs[i] = c
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f + ".cubin"
	}
	var want []string
	for _, m := range tt.msgs {
		parts := strings.Split(m, ":")
		args := []any{sym}
		for _, p := range parts[1:] {
			args = append(args, p)
		}
		want = append(want, fmt.Sprintf(parts[0], args...))
	}
	got, msgs := fold(sym, names, cs)
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("%s: messages\n got %q\nwant %q", tt.link, msgs, want)
	}
	if tt.msgs != nil {
		return // the link failed: nvlink wrote no output to compare
	}
	if got.Weak != tt.weak || got.Size != tt.size || files[got.File] != tt.winner {
		t.Errorf("%s: got weak=%v size=%d from %s, want weak=%v size=%d from %s",
			tt.link, got.Weak, got.Size, files[got.File], tt.weak, tt.size, tt.winner)
	}
}

// allCands enumerates candidates over every state, function/data, init,
// size, register count, PTX version, entry, address-taken and managed bit
// and memory space relation that Resolve looks at.
func allCands(file int32) []Cand {
	var out []Cand
	for _, k := range []Kind{Undef, Common, Defined} {
		for _, weak := range []bool{false, true} {
			for _, fn := range []bool{false, true} {
				for _, init := range []bool{false, true} {
					for _, size := range []uint64{4, 8} {
						for _, regs := range []uint32{0, 24, 54} {
							for _, ptx := range []uint32{70, 78} {
								for _, other := range []uint8{OtherEntry, 0, OtherEntry | OtherAddrTaken, OtherEntry | OtherManaged} {
									for _, space := range []uint8{1, 4} {
										out = append(out, Cand{File: file, Index: file*100 + int32(len(out)), Kind: k, Weak: weak, Func: fn,
											Init: init, Size: size, RegCount: regs, PTXVersion: ptx, Other: other, Space: space})
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// pair prints a failing case only when a test fails.
type pair struct{ ex, in Cand }

func (p pair) String() string { return fmt.Sprintf("%+v <- %+v", p.ex, p.in) }

// TestResolveMatrix checks every pair of candidates against the resolution
// matrix written out as a table of state pairs.
func TestResolveMatrix(t *testing.T) {
	type cell struct {
		act  Action
		mdef bool // Multiple definition reported
	}
	// matrix[existing][incoming] for same-kind (data/data, func/func) pairs
	// with equal sizes; weak/weak and common/strong are refined below.
	K, U, R := Keep, Upgrade, Replace
	matrix := [4][4]cell{
		StateUndef:  {{K, false}, {U, false}, {U, false}, {U, false}},
		StateCommon: {{K, false}, {K, false}, {K, false}, {R, false}},
		StateWeak:   {{K, false}, {R, false}, {K, false}, {R, false}},
		StateStrong: {{K, false}, {K, true}, {K, false}, {K, true}},
	}
	exs, ins := allCands(0), allCands(1)
	for _, e := range exs {
		ex := Sym{Cand: e, First: 0}
		for _, in := range ins {
			o := Resolve(ex, in)
			es, is := e.State(), in.State()
			want := matrix[es][is]
			if es == StateStrong && is == StateCommon && e.Init {
				want.mdef = false // an initialized definition absorbs a common
			}
			if es == StateWeak && is == StateWeak && e.Func && in.Func &&
				(in.RegCount < e.RegCount || in.RegCount == e.RegCount && in.PTXVersion > e.PTXVersion) {
				want.act = Replace
			}
			ctx := pair{e, in}
			if o.Action != want.act {
				t.Fatalf("%s: action %v, want %v", ctx, o.Action, want.act)
			}
			var mdef, space, managed, entry, sz, comm bool
			var order []Code
			for _, d := range o.Diags[:o.NDiag] {
				order = append(order, d.Code)
				switch d.Code {
				case MultipleDef:
					mdef = true
					if d.File != 1 || d.First != 0 {
						t.Fatalf("%s: multiple definition names %d, %d", ctx, d.File, d.First)
					}
				case SpaceMismatch:
					space = true
				case ManagedMismatch:
					managed = true
				case EntryMismatch:
					entry = true
				case SizeMismatch:
					sz = true
				case CommonLarger:
					comm = true
				}
			}
			if mdef != want.mdef {
				t.Fatalf("%s: multiple definition %v, want %v", ctx, mdef, want.mdef)
			}
			if space != (e.Func != in.Func || e.Space != in.Space) {
				t.Fatalf("%s: space mismatch %v", ctx, space)
			}
			if managed != (!e.Func && !in.Func && (e.Other^in.Other)&OtherManaged != 0) {
				t.Fatalf("%s: managed mismatch %v", ctx, managed)
			}
			if entry != (e.Func && in.Func && (e.Other^in.Other)&OtherEntry != 0) {
				t.Fatalf("%s: entry mismatch %v", ctx, entry)
			}
			if !slices.IsSorted(order) {
				t.Fatalf("%s: diagnostics out of nvlink's order: %v", ctx, order)
			}
			commonInit := (es == StateCommon && in.Kind == Defined && in.Init) ||
				(is == StateCommon && e.Kind == Defined && e.Init)
			wantSz := !in.Func && e.Size != in.Size && !(es == StateCommon && is == StateCommon) && !commonInit
			if sz != wantSz {
				t.Fatalf("%s: size mismatch %v, want %v", ctx, sz, wantSz)
			}
			if comm != (commonInit && e.Size != in.Size && (es == StateCommon) == (e.Size > in.Size)) {
				t.Fatalf("%s: common larger %v", ctx, comm)
			}
			// The survivor is the existing or the incoming candidate.
			w := o.Sym.Cand
			w.Other, w.Size, w.Weak = 0, 0, false
			a, b := e, in
			a.Other, a.Size, a.Weak = 0, 0, false
			b.Other, b.Size, b.Weak = 0, 0, false
			if (o.Action == Keep) != (w == a) || (o.Action != Keep) != (w == b) {
				t.Fatalf("%s: survivor %+v does not match action %v", ctx, o.Sym.Cand, o.Action)
			}
			if wantOther := ((e.Other | in.Other) & OtherAddrTaken); o.Sym.Other&OtherAddrTaken != wantOther {
				t.Fatalf("%s: other %#x, address-taken bit should be %#x", ctx, o.Sym.Other, wantOther)
			}
			if es == StateCommon && is == StateCommon && o.Sym.Size != max(e.Size, in.Size) {
				t.Fatalf("%s: common size %d", ctx, o.Sym.Size)
			}
		}
	}
}

// TestResolveFoldProperties folds random sequences and checks properties
// that follow from the rules, independently of Resolve's code.
func TestResolveFoldProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 2000; iter++ {
		n := 1 + r.IntN(12)
		// Weak functions only: the survivor is the first of those with the
		// fewest registers and, among them, the newest PTX.
		cs := make([]Cand, n)
		best := 0
		for i := range cs {
			cs[i] = Cand{File: int32(i), Kind: Defined, Weak: true, Func: true,
				RegCount: uint32(r.IntN(4)), PTXVersion: uint32(r.IntN(3))}
			b := cs[best]
			if cs[i].RegCount < b.RegCount || cs[i].RegCount == b.RegCount && cs[i].PTXVersion > b.PTXVersion {
				best = i
			}
		}
		got, msgs := fold("f", nil, cs)
		if int(got.File) != best || msgs != nil {
			t.Fatalf("weak functions %+v: survivor %d (%q), want %d", cs, got.File, msgs, best)
		}

		// Commons and references of one size class: size is the maximum,
		// no diagnostics unless a reference disagrees.
		var maxSize uint64
		for i := range cs {
			cs[i] = Cand{File: int32(i), Kind: Common, Size: uint64(1 + r.IntN(16))}
			maxSize = max(maxSize, cs[i].Size)
		}
		got, msgs = fold("c", nil, cs)
		if got.Size != maxSize || msgs != nil || got.File != 0 {
			t.Fatalf("commons %+v: size %d file %d (%q), want %d", cs, got.Size, got.File, msgs, maxSize)
		}

		// Random mixtures: folding is deterministic and every strong
		// definition after the first strong one is a multiple definition.
		files := make([]string, n)
		for i := range cs {
			files[i] = fmt.Sprint("f", i)
			cs[i] = Cand{File: int32(i), Kind: Kind(r.IntN(3)), Weak: r.IntN(2) == 0, Size: 4}
		}
		a, am := fold("x", files, cs)
		b, bm := fold("x", files, cs)
		if a != b || !reflect.DeepEqual(am, bm) {
			t.Fatalf("fold not deterministic")
		}
		strong := 0
		for _, c := range cs {
			if c.State() == StateStrong {
				strong++
			}
		}
		mdefs := 0
		for _, m := range am {
			if strings.HasPrefix(m, "Multiple definition") {
				mdefs++
			}
		}
		// Commons after a strong .nv.global definition are multiple
		// definitions too.
		sawStrong, extra := false, 0
		for _, c := range cs {
			if c.State() == StateStrong {
				sawStrong = true
			} else if sawStrong && c.State() == StateCommon {
				extra++
			}
		}
		if want := max(strong-1, 0) + extra; mdefs != want {
			t.Fatalf("%+v: %d multiple definitions, want %d (%q)", cs, mdefs, want, am)
		}
	}
}
