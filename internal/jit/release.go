package jit

import (
	"fmt"
	"strings"
)

// rules is what one nvlink release does differently in its compiles of
// PTX and NVVM IR: every such rule is a named field here, and the
// compiles ask it, never a version number. One value per release whose
// compiles warplink knows (nvlink 11.8, 12.5); a link takes the release
// --nvlink-version names, else that of the ptxas it runs (the compiled
// code is that toolkit's, and so is the release the link then follows,
// merge.chooseRelease), else 11.8's (rulesFor).
type rules struct {
	Name    string // "12.5"
	Version int    // 125

	// FPFirst: the members' -ftz, -prec-div, -prec-sqrt and -fma go to
	// libnvvm right after -arch, always (nvlink 11.8). Without it (nvlink
	// 12.5) they go only when -Xnvvm gives words, after those, each
	// unless a word sets it (-Xnvvm -ftz=1 drops the members' -ftz): the
	// members must agree either way (xcall built with and without
	// -use_fast_math: "Cicc option values for '-ftz' do not match").
	FPFirst bool

	// Xnvvm: -Xnvvm's words (split on commas and spaces) go after
	// nvlink's own options, each as given, but a word without '=' that is
	// one of nvlink's own (-g, --device-c, -link-lto, ...) is dropped
	// (nvlink 12.5: "-g -Xnvvm -g" passes -g once; "-Xnvvm -g,-g" twice;
	// "-maxrregcount=32 -Xnvvm -maxreg=32" twice, which libnvvm refuses:
	// "-maxreg defined more than once").
	Xnvvm bool

	// SplitCompile: -split-compile=N, or -split-compile-extended=N, right
	// after -link-lto; given both, an info line ("Incompatible options
	// '-split-compile' and '-split-compile-extended', using
	// '-split-compile-extended'") and the extended one (nvlink 12.5).
	SplitCompile bool

	// HostRefFile: the host references go to libnvvm as a file
	// (-host-ref-file=F, lines "EK: <len>:<pattern> ...", nvlink 11.8);
	// else as options after all others, -host-ref-ek=a,b per list that has
	// entries, in the same order (nvlink 12.5, hostref/).
	HostRefFile bool

	// WholeNeedsDevrt: a whole program (libnvvm's 100, nothing but IR
	// linked) without libcudadevrt among the inputs is refused after
	// ptxas: "expected libcudadevrt object", exit 1 (nvlink 12.5, which
	// leaves its output file written; warplink writes none). nvcc always
	// passes -lcudadevrt.
	WholeNeedsDevrt bool
}

var (
	rules118 = rules{Name: "11.8", Version: 118, FPFirst: true, HostRefFile: true}
	rules125 = rules{Name: "12.5", Version: 125, Xnvvm: true, SplitCompile: true, WholeNeedsDevrt: true}
)

// knownRules are the releases whose compiles warplink knows, oldest first.
var knownRules = []*rules{&rules118, &rules125}

// rulesFor returns the rules of the release named (125; 0: none named)
// or else of ptxasRel ("12.5", "" when unknown), and the warning a
// mismatch gives ("" for none): ptxas of another release than the one
// named, or of a release whose compiles warplink does not know (the
// rules are then the nearest older release's, or 11.8's).
func rulesFor(named int, ptxasRel, ptxasPath string) (*rules, string) {
	want := named
	if want == 0 {
		want = versionOf(ptxasRel)
	}
	// Of want's major version the nearest release, else the newest
	// older one, else the oldest (12.4 compiles as 12.5, 13.0 as 12.5).
	var same, below *rules
	for _, k := range knownRules {
		if k.Version/10 == want/10 && (same == nil || abs(k.Version-want) < abs(same.Version-want)) {
			same = k
		}
		if k.Version <= want {
			below = k
		}
	}
	r := knownRules[0]
	switch {
	case same != nil:
		r = same
	case below != nil:
		r = below
	}
	switch {
	case ptxasRel == "":
		return r, fmt.Sprintf("could not read the release of ptxas '%s' (nvlink %s's output needs ptxas %s)", ptxasPath, r.Name, r.Name)
	case named != 0 && versionOf(ptxasRel) != named:
		name := fmt.Sprintf("%d.%d", named/10, named%10)
		return r, fmt.Sprintf("ptxas '%s' is release %s: the output may differ from nvlink %s's, which needs ptxas %s", ptxasPath, ptxasRel, name, name)
	case named == 0 && r.Name != ptxasRel:
		return r, fmt.Sprintf("ptxas '%s' is release %s, whose nvlink's compiles warplink does not know: compiling as nvlink %s", ptxasPath, ptxasRel, r.Name)
	}
	return r, ""
}

func abs(n int) int { return max(n, -n) }

// versionOf reads "12.5" as 125 (0 when it is not a release).
func versionOf(rel string) int {
	var maj, min int
	if _, err := fmt.Sscanf(rel, "%d.%d", &maj, &min); err != nil || min > 9 || strings.Count(rel, ".") != 1 {
		return 0
	}
	return maj*10 + min
}

// xnvvmWords splits -Xnvvm's values into words (nvlink 12.5 splits on
// commas, which the command line has done, and on white space).
func xnvvmWords(values []string) []string {
	var w []string
	for _, v := range values {
		w = append(w, strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })...)
	}
	return w
}
