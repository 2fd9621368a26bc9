package ar

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/warplink/warplink/elf"
)

const corpus = "../../testdata/corpus/cuda11.8-sm_90"

func read(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// member is one entry for build.
type member struct {
	name string
	data []byte
}

// build writes a GNU-style archive: names longer than 15 bytes go to a "//"
// table, a "/" symbol table comes first. thin omits member data.
func build(thin bool, ms ...member) []byte {
	var out, long bytes.Buffer
	hdr := func(name string, size int) {
		fmt.Fprintf(&out, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", size)
	}
	pad := func() {
		if out.Len()%2 == 1 {
			out.WriteByte('\n')
		}
	}
	if thin {
		out.WriteString(ThinMagic)
	} else {
		out.WriteString(Magic)
	}
	hdr("/", 4)
	out.Write([]byte{0, 0, 0, 0})
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.name + "/"
		if len(m.name) > 15 || thin {
			names[i] = fmt.Sprintf("/%d", long.Len())
			long.WriteString(m.name + "/\n")
		}
	}
	if long.Len() > 0 {
		hdr("//", long.Len())
		out.Write(long.Bytes())
		pad()
	}
	for i, m := range ms {
		hdr(names[i], len(m.data))
		if !thin {
			out.Write(m.data)
			pad()
		}
	}
	return out.Bytes()
}

func TestCorpusArchives(t *testing.T) {
	for _, tc := range []struct{ ar, a, b string }{
		{"libdev.a", "lib.o", "lib2.o"},
		{"libdev_cubin.a", "lib.cubin", "lib2.cubin"},
	} {
		a, err := Parse(read(t, filepath.Join(corpus, "archive", tc.ar)))
		if err != nil {
			t.Fatalf("%s: %v", tc.ar, err)
		}
		if a.Thin || len(a.Members) != 2 {
			t.Fatalf("%s: thin=%v, %d members", tc.ar, a.Thin, len(a.Members))
		}
		for i, name := range []string{tc.a, tc.b} {
			m := a.Members[i]
			want := read(t, filepath.Join(corpus, "archive", name))
			if m.Name != name || !bytes.Equal(m.Data, want) || m.Size != int64(len(want)) {
				t.Errorf("%s member %d: %q (%d bytes), want %q (%d bytes)", tc.ar, i, m.Name, len(m.Data), name, len(want))
			}
		}
	}
}

func TestCudadevrt(t *testing.T) {
	a, err := Parse(read(t, "../../testdata/cudalib/libcudadevrt.a"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Members) != 1 || a.Members[0].Name != "cuda_device_runtime.o" || !elf.IsELF(a.Members[0].Data) {
		t.Fatalf("members: %+v", a.Members)
	}
}

func TestLongNamesAndThin(t *testing.T) {
	long := "a_very_long_member_name_lib.o"
	ms := []member{{long, []byte("odd")}, {"b.o", []byte("even")}, {"another_very_long_name.o", []byte("x")}}
	a, err := Parse(build(false, ms...))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Members) != 3 {
		t.Fatalf("%d members", len(a.Members))
	}
	for i, m := range a.Members {
		if m.Name != ms[i].name || string(m.Data) != string(ms[i].data) || m.Path != "" {
			t.Errorf("member %d = %q %q", i, m.Name, m.Data)
		}
	}
	a, err = Parse(build(true, ms...))
	if err != nil {
		t.Fatal(err)
	}
	if !a.Thin || len(a.Members) != 3 {
		t.Fatalf("thin=%v, %d members", a.Thin, len(a.Members))
	}
	for i, m := range a.Members {
		if m.Path != ms[i].name || m.Data != nil || m.Size != int64(len(ms[i].data)) {
			t.Errorf("thin member %d = %+v", i, m)
		}
	}
}

// TestSystemAr cross-checks the decoder against binutils ar, which writes
// GNU long names, and thin archives with paths.
func TestSystemAr(t *testing.T) {
	arTool, err := exec.LookPath("ar")
	if err != nil {
		t.Skip("no ar")
	}
	dir := t.TempDir()
	names := []string{"short.o", "a_name_longer_than_fifteen.o", "odd"}
	for i, n := range names {
		os.WriteFile(filepath.Join(dir, n), bytes.Repeat([]byte{byte('a' + i)}, 3+i), 0o644)
	}
	for _, thin := range []bool{false, true} {
		flags := "rc"
		if thin {
			flags = "rcT"
		}
		os.Remove(filepath.Join(dir, "t.a"))
		cmd := exec.Command(arTool, append([]string{flags, "t.a"}, names...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ar: %v %s", err, out)
		}
		a, err := Parse(read(t, filepath.Join(dir, "t.a")))
		if err != nil {
			t.Fatal(err)
		}
		if a.Thin != thin || len(a.Members) != len(names) {
			t.Fatalf("thin=%v: %+v", thin, a)
		}
		for i, m := range a.Members {
			want := read(t, filepath.Join(dir, names[i]))
			got := m.Data
			if thin {
				got = read(t, filepath.Join(dir, m.Path))
			}
			if m.Name != names[i] || !bytes.Equal(got, want) {
				t.Errorf("thin=%v member %d: %q %q", thin, i, m.Name, got)
			}
		}
	}
}

func TestBSDAndSkipped(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(Magic)
	add := func(name string, data string) {
		fmt.Fprintf(&b, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", len(data))
		b.WriteString(data)
		if b.Len()%2 == 1 {
			b.WriteByte('\n')
		}
	}
	add("/SYM64/", "12345678")
	add("__.LIBDEP/", "-lfoo")
	add("#1/8", "bsd.o\x00\x00\x00DATA")
	add("plain.o/", "P")
	a, err := Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Members) != 2 {
		t.Fatalf("members %+v", a.Members)
	}
	if m := a.Members[0]; !m.BSD || m.Name != "bsd.o" || string(m.Data) != "DATA" {
		t.Errorf("bsd member %+v", m)
	}
	if m := a.Members[1]; m.BSD || m.Name != "plain.o" || string(m.Data) != "P" {
		t.Errorf("plain member %+v", m)
	}
}

func TestBad(t *testing.T) {
	good := build(false, member{"a_very_long_member_name.o", []byte("data")})
	for name, in := range map[string][]byte{
		"empty":      nil,
		"magic":      []byte("!<arch>"),
		"header":     append([]byte(Magic), "x.o/   "...),
		"size":       []byte(Magic + fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10s`\n", "x.o/", "0", "0", "0", "644", "12x")),
		"past end":   []byte(Magic + fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", "x.o/", "0", "0", "0", "644", 100)),
		"fmag":       []byte(Magic + fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d!\n", "x.o/", "0", "0", "0", "644", 0)),
		"long name":  bytes.Replace(good, []byte("/0 "), []byte("/99"), 1),
		"bsd length": []byte(Magic + fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", "#1/20", "0", "0", "0", "644", 2) + "ab"),
	} {
		_, err := Parse(in)
		var e *elf.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want *elf.Error", name, err)
		}
	}
}

func FuzzArchive(f *testing.F) {
	for _, p := range []string{"archive/libdev.a", "archive/libdev_cubin.a"} {
		b, err := os.ReadFile(filepath.Join(corpus, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 2048)])
	}
	f.Add(build(true, member{"a_very_long_member_name.o", []byte("x")}, member{"b.o", nil}))
	f.Add([]byte(Magic + fmt.Sprintf("%-16s%-12s%-6s%-6s%-8s%-10d`\n", "#1/3", "0", "0", "0", "644", 4) + "abcd"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Parse(b)
		if err != nil {
			return
		}
		for _, m := range a.Members {
			if m.Data != nil && (int64(len(m.Data)) > m.Size || m.Offset < 0 || m.Offset >= int64(len(b))) {
				t.Fatalf("member %+v out of bounds", m)
			}
		}
	})
}
