package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/warplink/warplink/internal/diag"
)

// parse runs Parse and Check the way cmd/warplink does, for nvlink 11.8
// (which the cases were checked against), and returns the command, the
// stderr nvlink would print and the exit status (-1 = go on to link).
func parse(args []string, readFile func(string) ([]byte, error)) (*Command, string, int) {
	return parseFor("11.8", args, readFile)
}

// parseFor is parse for the nvlink release named ("": the inputs will
// choose).
func parseFor(release string, args []string, readFile func(string) ([]byte, error)) (*Command, string, int) {
	bag := &diag.Bag{}
	var buf bytes.Buffer
	c, err := ParseRelease(args, readFile, bag, release)
	if err == nil && !c.Help && !c.Version {
		err = c.Check()
	}
	if err != nil {
		bag.Fatalf([3]int{}, "%s", err)
		bag.Print(&buf, "nvlink")
		return c, buf.String(), 1
	}
	bag.Print(&buf, "nvlink")
	return c, buf.String(), -1
}

var base = []string{"-arch=sm_90", "a.cubin", "-o", "out.cubin"}

func TestForms(t *testing.T) {
	tests := []struct {
		args  []string
		field string
		want  any
	}{
		{[]string{"-arch", "sm_80"}, "Arch", "sm_80"},
		{[]string{"--arch", "sm_80"}, "Arch", "sm_80"},
		{[]string{"--arch=sm_80"}, "Arch", "sm_80"},
		{[]string{"-arch=compute_90"}, "Arch", "compute_90"},
		{[]string{"-o=x"}, "Output", "x"},
		{[]string{"--output-file", "x,y"}, "Output", "x,y"},
		{[]string{"--output-file=-g"}, "Output", "-g"},
		{[]string{"-o", "-g"}, "Output", "-g"},
		{[]string{"-L", "d1", "-Ld2", "-L=d3", "--library-path", "d4,d5", "--library-path=d6"}, "LibDirs", []string{"d1", "d2", "d3", "d4", "d5", "d6"}},
		{[]string{"-lm", "-l", "n", "-l=o", "--library", "p,q", "b.cubin"}, "Inputs", []string{"a.cubin", "-lm", "-ln", "-lo", "-lp", "-lq", "b.cubin"}},
		{[]string{"-m32"}, "Machine64", false},
		{[]string{"-m", "32", "-m=64"}, "Machine64", true},
		{[]string{"--machine", "0x20"}, "Machine64", false},
		{[]string{"-cpu-arch", "X86_64"}, "CPUArch", "X86_64"},
		{[]string{"--cpu-arch=AARCH64"}, "CPUArch", "AARCH64"},
		{[]string{"-g"}, "Debug", true},
		{[]string{"--debug"}, "Debug", true},
		{[]string{"-w"}, "NoWarn", true},
		{[]string{"--disable-warnings"}, "NoWarn", true},
		{[]string{"-Werror"}, "Werror", true},
		{[]string{"--warning-as-error"}, "Werror", true},
		{[]string{"-v"}, "Verbose", true},
		{[]string{"--verbose"}, "Verbose", true},
		{[]string{"-preserve-relocs"}, "PreserveRelocs", true},
		{[]string{"--suppress-stack-size-warning"}, "SuppressStackSizeWarning", true},
		{[]string{"-suppress-arch-warning"}, "SuppressArchWarning", true},
		{[]string{"-dump-callgraph"}, "DumpCallgraph", true},
		{[]string{"--dump-callgraph-no-demangle"}, "DumpCallgraph", true},
		{[]string{"-kernels-used", "k1,k2", "--kernels-used=k3"}, "KernelsUsed", []string{"k1", "k2", "k3"}},
		{[]string{"-variables-used", "v1", "-variables-used", "v2,v3"}, "VariablesUsed", []string{"v1", "v2", "v3"}},
		{[]string{"-ignore-host-info"}, "IgnoreHostInfo", true},
		{[]string{"--use-host-info"}, "UseHostInfo", true},
		{[]string{"-keep-system-libraries"}, "KeepSystemLibraries", true},
		{[]string{"-allow-undefined-globals"}, "AllowUndefinedGlobals", true},
		{[]string{"--register-link-binaries", "r.c"}, "RegisterLinkBinaries", "r.c"},
		{[]string{"-time", "-"}, "Time", "-"},
		{[]string{"--time=t.csv"}, "Time", "t.csv"},
	}
	for _, tt := range tests {
		args := append(slices.Clone(base), tt.args...)
		c, msg, _ := parse(args, os.ReadFile)
		if c == nil {
			t.Errorf("%q: %s", tt.args, msg)
			continue
		}
		got := reflect.ValueOf(c.Opts).FieldByName(tt.field).Interface()
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: %s = %#v, want %#v", tt.args, tt.field, got, tt.want)
		}
	}
}

func TestExtraForms(t *testing.T) {
	c, msg, _ := parse(append(slices.Clone(base), "-Xptxas", "-v,-O3", "--Xptxas=-g", "-maxrregcount", "0x10",
		"-nvvmpath", "/nvvm", "-host-ccbin", "gcc", "--host-ccbin=clang", "-tool-name", "foo",
		"-cuda-api-version", "11.8", "-dot", "d.dot", "-r", "-shared", "-lineinfo", "-uumn", "-force-rela",
		"-disable-smem-reservation", "true", "-syscall-const-offset", "-1", "-Xlinker", "a,b",
		"-report-arch", "-extrawarn", "-reserve-null-pointer", "--dont-reserve-null-pointer"), os.ReadFile)
	if c == nil {
		t.Fatal(msg)
	}
	want := Command{Xptxas: []string{"-g"}, MaxRegCount: 16, NVVMPath: "/nvvm", HostCCBin: "clang",
		ToolName: "foo", CUDAAPIVersion: "11.8", APIVersion: 118, DotFile: "d.dot", Relocatable: true, Shared: true,
		LineInfo: true, UUMN: true, ForceRela: true, DisableSmemReservation: true, SyscallConstOffset: -1,
		HostLinkerOptions: []string{"a", "b"}, ExtraWarnings: true, ReserveNullPointer: true,
		DontReserveNullPointer: true, Release: 118, SplitCompile: 1, SplitCompileExtended: 1, outputGiven: true}
	want.Opts = c.Opts
	if !reflect.DeepEqual(*c, want) {
		t.Errorf("got  %+v\nwant %+v", *c, want)
	}
	if !c.Opts.ReportArch {
		t.Error("-report-arch not set")
	}
	if !strings.Contains(msg, "incompatible redefinition for option 'host-ccbin'") {
		t.Errorf("no redefinition warning: %q", msg)
	}
}

// errorCases are command lines nvlink 11.8 rejects before reading any
// input, with its exact stderr (checked against nvlink by TestAgainstNvlink).
var errorCases = []struct {
	args []string
	want string
}{
	{nil, "nvlink fatal   : Unknown arch name '(null)'\n"},
	{[]string{"--bogus"}, "nvlink fatal   : Unknown option '-bogus'\n"},
	{[]string{"-bogus", "a.cubin"}, "nvlink fatal   : Unknown option 'bogus'\n"},
	{[]string{"--bogus=3"}, "nvlink fatal   : Unknown option '-bogus'\n"},
	{[]string{"--"}, "nvlink fatal   : Unknown option '-'\n"},
	{[]string{"-=x"}, "nvlink fatal   : Unknown option ''\n"},
	{[]string{"-ox.cubin"}, "nvlink fatal   : Unknown option 'ox.cubin'\n"},
	{[]string{"-output-file", "x"}, "nvlink fatal   : Unknown option 'output-file'\n"},
	{[]string{"--o", "x"}, "nvlink fatal   : Unknown option '-o'\n"},
	{[]string{"-register-link-binaries", "x"}, "nvlink fatal   : Unknown option 'register-link-binaries'\n"},
	{[]string{"--lineinfo"}, "nvlink fatal   : Unknown option '-lineinfo'\n"},
	{[]string{"-arch"}, "nvlink fatal   : argument expected after '-arch'\n"},
	{[]string{"--arch"}, "nvlink fatal   : argument expected after '--arch'\n"},
	{[]string{"--host-ccbin"}, "nvlink fatal   : argument expected after '--host-ccbin'\n"},
	{[]string{"-g=1"}, "nvlink fatal   : no argument expected after '-g'\n"},
	{[]string{"--debug=true"}, "nvlink fatal   : no argument expected after '--debug'\n"},
	{[]string{"-arch=sm_9x", "a.cubin"}, "nvlink fatal   : Value 'sm_9x' is not defined for option 'arch'\n"},
	{[]string{"-arch=sm_90,sm_80"}, "nvlink fatal   : Value 'sm_90,sm_80' is not defined for option 'arch'\n"},
	{[]string{"-arch", "-g"}, "nvlink fatal   : Value '-g' is not defined for option 'arch'\n"},
	{[]string{"-cpu-arch=x86_64"}, "nvlink fatal   : Value 'x86_64' is not defined for option 'cpu-arch'\n"},
	{[]string{"-ghls", "lcs-foo"}, "nvlink fatal   : Value 'lcs-foo' is not defined for option 'gen-host-linker-script'\n"},
	{[]string{"-m", "33"}, "nvlink fatal   : Value '33' is not defined for option 'machine'\n"},
	{[]string{"-mx"}, "nvlink fatal   : 'x': expected a number\n"},
	{[]string{"-m", "64,32"}, "nvlink fatal   : '64,32': expected a number\n"},
	{[]string{"-maxrregcount", "x"}, "nvlink fatal   : 'x': expected a number\n"},
	{[]string{"-disable-smem-reservation", "x"}, "nvlink fatal   : 'x': expected true or false\n"},
	{[]string{"-optf"}, "nvlink fatal   : argument expected after '-optf'\n"},
	{[]string{"--options-file=nonexist"}, "nvlink fatal   : Could not open options file 'nonexist'\n"},
	{[]string{"-arch=sm_90"}, "nvlink fatal   : Must specify output file with -o option\n"},
	{[]string{"-arch=sm_90", "a.cubin", "-o"}, "nvlink fatal   : argument expected after '-o'\n"},
	{[]string{"-arch=sm_90", "-o", "x"}, "nvlink fatal   : No input files specified; use option --help for more information\n"},
	{[]string{"-arch=sm_90", "-o", "x", "-lcudadevrt"}, "nvlink fatal   : No input files specified; use option --help for more information\n"},
	{[]string{"a.cubin", "-o", "x"}, "nvlink fatal   : Unknown arch name '(null)'\n"},
	{[]string{"-o", "a", "-o", "b"}, "nvlink warning : incompatible redefinition for option 'output-file', the last value of this option was used\nnvlink fatal   : Unknown arch name '(null)'\n"},
	{[]string{"-w", "-m", "64", "-m", "32"}, "nvlink warning : incompatible redefinition for option 'machine', the last value of this option was used\nnvlink fatal   : Unknown arch name '(null)'\n"},
	{[]string{"-suppress-debug-info"}, "nvlink fatal   : Conflicting options '-suppress-debug-info' and 'no -g'\n"},
	{[]string{"-ghls", "lcs-aug", "a.cubin"}, "nvlink fatal   : Input files are not allowed with -ghls option; use --help for more information\n"},
	{[]string{"-lm", "-ghls", "a.cubin"}, "nvlink fatal   : Value 'a.cubin' is not defined for option 'gen-host-linker-script'\n"},
	// Only a real architecture needs -o.
	{[]string{"-arch=lto_90", "a.cubin"}, "nvlink fatal   : Link target of 'lto_90' is virtual target that is not JIT-able; use 'sm_' target instead\n"},
	{[]string{"-arch=lto_90"}, "nvlink fatal   : No input files specified; use option --help for more information\n"},
	{[]string{"-arch=compute_90", "-force-whole-lto", "a.cubin"}, "nvlink fatal   : Conflicting options '-force-whole-lto' and 'no -dlto'\n"},
	{[]string{"-arch=lto_90", "-o", "x", "a.cubin", "-m32"}, "nvlink fatal   : Link target of 'lto_90' is virtual target that is not JIT-able; use 'sm_' target instead\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-lto"}, "nvlink fatal   : -nvvmpath should be specified with -lto\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-emit-ptx", "e", "-m32"}, "nvlink fatal   : Conflicting options '-emit-ptx' and 'no -dlto'\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-force-whole-lto"}, "nvlink fatal   : Conflicting options '-force-whole-lto' and 'no -dlto'\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-m32", "-cuda-api-version", "12.0"}, "nvlink fatal   : Option '-m32' not supported for gpu architecture 'sm_90'\n"},
	{[]string{"-arch=compute_90", "-o", "x", "a.cubin", "-m", "32"}, "nvlink fatal   : Option '-m32' not supported for gpu architecture 'compute_90'\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-cuda-api-version", "12.0"}, "nvlink fatal   : --cuda-api-version major number must be == toolkit version\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-cuda-api-version", "11"}, "nvlink fatal   : --cuda-api-version value cannot be parsed\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-cuda-api-version", "11.8x"}, "nvlink fatal   : --cuda-api-version value cannot be parsed\n"},
	{[]string{"-arch=sm_90", "-o", "x", "a.cubin", "-cuda-api-version", "0x0b.8"}, "nvlink fatal   : --cuda-api-version value cannot be parsed\n"},
}

func TestErrors(t *testing.T) {
	for _, tt := range errorCases {
		_, got, code := parse(tt.args, os.ReadFile)
		if got != tt.want || code != 1 {
			t.Errorf("%q:\n got %q (status %d)\nwant %q (status 1)", tt.args, got, code, tt.want)
		}
	}
}

// nvlinkRun runs real nvlink in dir and returns its stderr and status.
func nvlinkRun(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("nvlink", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func needNvlink(t *testing.T) {
	if _, err := exec.LookPath("nvlink"); err != nil {
		t.Skip("nvlink not found")
	}
}

// corpusDir is a temporary folder holding the xcall cubins.
func corpusDir(t *testing.T) string {
	dir := t.TempDir()
	for _, n := range []string{"a.cubin", "b.cubin", "c.cubin"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "cuda11.8-sm_90", "xcall", n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, n), data, 0o644)
	}
	return dir
}

func TestAgainstNvlink(t *testing.T) {
	needNvlink(t)
	dir := corpusDir(t)
	for _, tt := range errorCases {
		_, got, code := nvlinkRun(t, dir, tt.args...)
		if got != tt.want || code != 1 {
			t.Errorf("nvlink %q:\n got %q (status %d)\nwant %q (status 1)", tt.args, got, code, tt.want)
		}
	}
}

// TestAcceptedByNvlink checks that command lines warplink accepts are
// accepted by nvlink too (it links the xcall cubins).
func TestAcceptedByNvlink(t *testing.T) {
	needNvlink(t)
	dir := corpusDir(t)
	link := []string{"-arch=sm_90", "a.cubin", "b.cubin", "c.cubin", "-o", "out.cubin"}
	for _, extra := range [][]string{
		{"-m64", "-cpu-arch=X86_64", "--host-ccbin", "gcc"},
		{"-m=64", "--machine", "64", "-g", "-w", "-v", "-Werror"},
		{"-Xptxas", "-v", "-maxrregcount", "32", "-nvvmpath", "/tmp", "-cuda-api-version", "11.8"},
		{"-kernels-used", "main,stage", "-variables-used=x", "-ignore-host-info", "-keep-system-libraries"},
		{"-allow-undefined-globals", "-dont-reserve-null-pointer", "-reserve-null-pointer", "-force-rela", "-uumn"},
		{"-shared", "-r", "-lineinfo", "-Xlinker", "x", "-syscall-const-offset", "8", "-disable-smem-reservation=false"},
		{"-report-arch", "-extrawarn", "--suppress-arch-warning", "-suppress-stack-size-warning", "-L", "."},
	} {
		args := append(slices.Clone(link), extra...)
		if _, msg, code := parse(args, os.ReadFile); code != -1 {
			t.Errorf("warplink rejects %q: %s", extra, msg)
		}
		if _, msg, code := nvlinkRun(t, dir, args...); code != 0 {
			t.Errorf("nvlink rejects %q: %s", extra, msg)
		}
	}
}

func TestOptionsFile(t *testing.T) {
	files := map[string]string{
		"f1":   "-arch=sm_90\n a.cubin \"b.cubin\"\n-optf f2 -o \"z 1.cubin\"",
		"f2":   "-L lib1,lib2 -lfoo",
		"self": "-optf self",
		"bad":  "-o \"x",
	}
	read := func(name string) ([]byte, error) {
		s, ok := files[name]
		if !ok {
			return nil, os.ErrNotExist
		}
		return []byte(s), nil
	}
	c, msg, _ := parse([]string{"-optf", "f1", "c.cubin"}, read)
	if c == nil {
		t.Fatal(msg)
	}
	if want := []string{"a.cubin", "b.cubin", "-lfoo", "c.cubin"}; !slices.Equal(c.Opts.Inputs, want) {
		t.Errorf("inputs %q, want %q", c.Opts.Inputs, want)
	}
	if c.Opts.Output != "z 1.cubin" || !slices.Equal(c.Opts.LibDirs, []string{"lib1", "lib2"}) {
		t.Errorf("output %q, libdirs %q", c.Opts.Output, c.Opts.LibDirs)
	}
	if _, msg, _ := parse([]string{"-optf", "self"}, read); msg != "nvlink fatal   : Too many options file opened 'self'\n" {
		t.Errorf("self include: %q", msg)
	}
	if _, msg, _ := parse([]string{"--options-file", "f2,bad"}, read); msg != "nvlink fatal   : Stray '\"' character\n" {
		t.Errorf("unterminated quote: %q", msg)
	}
}

// quoteCases are options-file words and what nvlink reads from them (the
// output file name nvlink 11.8 created for "-o WORD").
var quoteCases = []struct{ in, want string }{
	{`plain`, "plain"},
	{`"q\"r"`, "qr"},
	{`"q\\r"`, `q\r`},
	{`"q\r"`, "qr"},
	{`a\\b`, `a\b`},
	{`a\"b`, "ab"},
	{`a\b`, "ab"},
	{`a'b`, "a'b"},
	{`"a\"b\"c"`, "abc"},
	{`a""b`, "ab"},
	{`"x y"z"w"`, "x yzw"},
	{`"a\" b"`, "a b"},
	{`a\\"b c"`, `a\"b c`},
	{`a\ b`, "a b"},
	{`a\\\"b`, `a\"b`},
	// Spaces and tabs that end a word once unescaped are dropped (as those
	// that begin one: TestSplitOptionsFile).
	{`x\ `, "x"},
	{`x\ \	`, "x"},
	{`x\ ""`, "x "},
	{`x\	y`, "x\ty"},
	{`x\\\ `, `x\`},
}

func TestSplitOptionsFile(t *testing.T) {
	for _, tt := range quoteCases {
		got, err := SplitOptionsFile("-o " + tt.in + "\n")
		if err != nil || len(got) != 2 || got[1] != tt.want {
			t.Errorf("%s: got %q %v, want %q", tt.in, got, err, tt.want)
		}
	}
	if w, _ := SplitOptionsFile(" \n\t "); len(w) != 0 {
		t.Errorf("blank file gave %q", w)
	}
	// (nvlink 11.8: "-arch \ a" gives -arch the value a.)
	if w, err := SplitOptionsFile("-arch \\ a"); err != nil || !slices.Equal(w, []string{"-arch", "a"}) {
		t.Errorf("an escaped space starting a word: %q %v", w, err)
	}
	// A word of escaped spaces and tabs only is no word (nvlink 11.8:
	// "-arch \  -zz" gives -arch the value -zz).
	if w, err := SplitOptionsFile("-arch \\ \\\t -zz\n"); err != nil || !slices.Equal(w, []string{"-arch", "-zz"}) {
		t.Errorf("escaped blanks: %q %v", w, err)
	}
	// A backslash that ends the file escapes its end: nvlink 11.8 names the
	// NUL there (printed as nothing), before an unclosed quote.
	for _, in := range []string{"-zz\\", "-zz \"x\\", "-o a\\\\\\"} {
		if _, err := SplitOptionsFile(in); err == nil || err.Error() != "Stray '' character" {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestSplitOptionsFileAgainstNvlink(t *testing.T) {
	needNvlink(t)
	dir := corpusDir(t)
	for _, tt := range quoteCases {
		sub := t.TempDir()
		f := filepath.Join(sub, "optf")
		os.WriteFile(f, []byte("-arch=sm_90 a.cubin b.cubin c.cubin -o "+filepath.Join(sub, "out_")+tt.in+"\n"), 0o644)
		if _, msg, code := nvlinkRun(t, dir, "-optf", f); code != 0 {
			t.Errorf("%s: nvlink: %s", tt.in, msg)
			continue
		}
		es, _ := os.ReadDir(sub)
		var made []string
		for _, e := range es {
			if strings.HasPrefix(e.Name(), "out_") {
				made = append(made, strings.TrimPrefix(e.Name(), "out_"))
			}
		}
		if len(made) != 1 || made[0] != tt.want {
			t.Errorf("%s: nvlink wrote %q, want %q", tt.in, made, tt.want)
		}
	}
}

// TestHelpCoversNvlink checks that every option in nvlink's --help is in
// warplink's table and help under the same names.
func TestHelpCoversNvlink(t *testing.T) {
	needNvlink(t)
	out, _, _ := nvlinkRun(t, t.TempDir(), "--help")
	var ours bytes.Buffer
	PrintHelp(&ours, "warplink")
	re := regexp.MustCompile(`(?m)^--(\S+)[^\n]*?(?:\(-(\S+)\))?\s*$`)
	n := 0
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		n++
		long, short := m[1], m[2]
		found := false
		for _, o := range options() {
			if o.long == long && (short == "" || o.short == short) {
				found = true
			}
		}
		if !found {
			t.Errorf("nvlink option --%s (-%s) missing", long, short)
		}
		if !strings.Contains(ours.String(), "\n--"+long) {
			t.Errorf("--%s missing from help", long)
		}
	}
	if n < 30 {
		t.Fatalf("parsed only %d options from nvlink --help", n)
	}
}

func TestHostLinkerScript(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHostLinkerScript(&b, "lcs-aug", "", true); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "SECTIONS\n{\n") {
		t.Fatalf("lcs-aug: %q", b.String())
	}
	if _, err := exec.LookPath("nvlink"); err != nil {
		return
	}
	for _, kind := range []string{"lcs-aug", "lcs-abs"} {
		dir := t.TempDir()
		if _, msg, code := nvlinkRun(t, dir, "-ghls", kind, "-o", "ref.ld"); code != 0 {
			t.Fatalf("nvlink -ghls %s: %s", kind, msg)
		}
		want, _ := os.ReadFile(filepath.Join(dir, "ref.ld"))
		var got bytes.Buffer
		if err := WriteHostLinkerScript(&got, kind, "gcc", true); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("-ghls %s differs from nvlink (%d vs %d bytes)", kind, got.Len(), len(want))
		}
	}
}

// TestOptionsRoom checks that every release's option table fits the room
// options makes for it (one allocation per link), and that releaseTable
// changes the copy, never the static table options118.
func TestOptionsRoom(t *testing.T) {
	for _, rel := range []int{0, 118, 124, 125, 130} {
		if n := len(releaseTable(options(), rel)); n > optionsRoom {
			t.Errorf("release %d: %d options, room for %d", rel, n, optionsRoom)
		}
	}
	for _, o := range options118 {
		switch o.long {
		case "machine":
			if len(o.values) != 2 || o.help != "Specify 32 or 64 bit host architecture (default 64)." {
				t.Errorf("options118's machine changed: %q %q", o.values, o.help)
			}
		case "arch":
			if len(o.values) != len(archValues) {
				t.Errorf("options118's arch has %d values, want %d", len(o.values), len(archValues))
			}
		case "Xptxas":
			if o.arg != "<options>" {
				t.Errorf("options118's Xptxas arg changed: %q", o.arg)
			}
		}
	}
}
