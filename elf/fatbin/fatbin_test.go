package fatbin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/ar"
)

const corpus = "../../testdata/corpus/cuda11.8-sm_90"

// relfatbin returns the __nv_relfatbin section of a host object.
func relfatbin(t testing.TB, obj []byte) []byte {
	t.Helper()
	f, err := elf.Parse(obj)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Sections {
		if f.SecName(i) == "__nv_relfatbin" {
			return f.Sections[i].Data()
		}
	}
	t.Fatal("no __nv_relfatbin")
	return nil
}

func hostObjects(t testing.TB) []string {
	objs, _ := filepath.Glob(filepath.Join(corpus, "*", "*.o"))
	if len(objs) == 0 {
		t.Fatal("no corpus host objects")
	}
	return objs
}

// TestCorpusMembers checks that every -dc object carries one LZ4-compressed
// sm_90 cubin that is byte-identical to the cubin nvcc -cubin wrote for the
// same translation unit, plus compute_90 PTX.
func TestCorpusMembers(t *testing.T) {
	for _, o := range hostObjects(t) {
		cs, err := Parse(relfatbin(t, read(t, o)))
		if err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		if len(cs) != 1 || len(cs[0].Members) != 2 {
			t.Fatalf("%s: %d containers", o, len(cs))
		}
		ms := cs[0].Members
		i, ch := Select(ms, 90)
		if ch != SASS || ms[i].Kind != KindELF || ms[i].Flags&FlagCompressLZ4 == 0 || ms[i].Flags&Flag64Bit == 0 {
			t.Fatalf("%s: select %d %v %+v", o, i, ch, ms)
		}
		got, err := ms[i].Contents()
		if err != nil {
			t.Fatalf("%s: %v", o, err)
		}
		want := read(t, strings.TrimSuffix(o, ".o")+".cubin")
		if !bytes.Equal(got, want) {
			t.Errorf("%s: sm_90 member (%d bytes) differs from the nvcc cubin (%d bytes)", o, len(got), len(want))
		}
		ptx := ms[1-i]
		text, err := ptx.Contents()
		if err != nil || ptx.Kind != KindPTX || ptx.Arch != 90 || !bytes.Contains(text, []byte(".target sm_90")) {
			t.Errorf("%s: PTX member %+v: %v", o, ptx, err)
		}
		if _, ch := Select(ms, 80); ch != NoCode {
			t.Errorf("%s: sm_80 choice %v, want NoCode", o, ch)
		}
		if j, ch := Select(ms, 100); ch != PTXOnly || j != 1-i {
			t.Errorf("%s: sm_100 choice %d %v, want PTX", o, j, ch)
		}
	}
}

// TestCuobjdump cross-checks member lists and decompressed cubins against
// cuobjdump on libcudadevrt (12 cubins, sm_35..sm_90).
func TestCuobjdump(t *testing.T) {
	tool, err := exec.LookPath("cuobjdump")
	if err != nil {
		t.Skip("no cuobjdump")
	}
	lib, _ := filepath.Abs("../../testdata/cudalib/libcudadevrt.a")
	a, err := ar.Parse(read(t, lib))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Parse(relfatbin(t, a.Members[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.Command(tool, "-xelf", "all", lib)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cuobjdump: %v\n%s", err, out)
	}
	// "ELF file    3: libcudadevrt.3.sm_50.cubin"
	re := regexp.MustCompile(`(ELF) file +\d+: (\S+\.sm_(\d+)\.cubin)`)
	var want []string
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		want = append(want, m[1]+" sm_"+m[3])
		if m[1] == "ELF" {
			// cuobjdump -xelf writes each cubin under its listed name.
			if _, err := os.Stat(filepath.Join(dir, m[2])); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	ncubin := 0
	for _, m := range cs[0].Members {
		if m.Kind != KindELF {
			continue
		}
		got = append(got, "ELF sm_"+itoa(m.Arch))
		ncubin++
		b, err := m.Contents()
		if err != nil {
			t.Fatal(err)
		}
		ref := read(t, filepath.Join(dir, "libcudadevrt."+itoa(ncubin)+".sm_"+itoa(m.Arch)+".cubin"))
		if !bytes.Equal(b, ref) {
			t.Errorf("sm_%d cubin differs from cuobjdump -xelf", m.Arch)
		}
	}
	if len(want) != 12 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("members %v, cuobjdump %v", got, want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func read(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// container builds a one-member container around payload.
func container(kind uint16, arch int, flags uint64, payload []byte, uncompressed int) []byte {
	padded := (len(payload) + 7) &^ 7
	b := make([]byte, 16+64+padded)
	binary.LittleEndian.PutUint32(b, Magic)
	binary.LittleEndian.PutUint16(b[4:], 1)
	binary.LittleEndian.PutUint16(b[6:], 16)
	binary.LittleEndian.PutUint64(b[8:], uint64(64+padded))
	h := b[16:]
	binary.LittleEndian.PutUint16(h, kind)
	binary.LittleEndian.PutUint16(h[2:], 0x101)
	binary.LittleEndian.PutUint32(h[4:], 64)
	binary.LittleEndian.PutUint64(h[8:], uint64(padded))
	if flags&0xF000 != 0 {
		binary.LittleEndian.PutUint32(h[16:], uint32(len(payload)))
		binary.LittleEndian.PutUint64(h[56:], uint64(uncompressed))
	}
	binary.LittleEndian.PutUint32(h[28:], uint32(arch))
	binary.LittleEndian.PutUint64(h[40:], flags)
	copy(h[64:], payload)
	return b
}

func TestZstdAndConcatenation(t *testing.T) {
	cubin := read(t, filepath.Join(corpus, "archive", "lib.cubin"))
	enc, _ := zstd.NewWriter(nil)
	z := enc.EncodeAll(cubin, nil)
	one := container(KindELF, 80, Flag64Bit|FlagCompressZstd, z, len(cubin))
	two := container(KindELF, 90, Flag64Bit, cubin, 0)
	cs, err := Parse(append(append(one, two...), 0, 0, 0, 0, 0, 0, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].Offset != len(one) {
		t.Fatalf("%d containers", len(cs))
	}
	for _, c := range cs {
		b, err := c.Members[0].Contents()
		if err != nil || !bytes.Equal(b, cubin) {
			t.Errorf("container at %d: %v", c.Offset, err)
		}
	}
	first, err := ParseFirst(append(one, two...))
	if err != nil || first.Members[0].Arch != 80 {
		t.Errorf("ParseFirst: %+v %v", first, err)
	}
}

func TestLZ4(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{[]byte{0x30, 'a', 'b', 'c'}, "abc"},
		// "ab" then a 10-byte overlapping match at offset 2 (and the 12
		// literals that end a block: lastLiterals).
		{append([]byte{0x26, 'a', 'b', 2, 0, 0xC0}, "0123456789ab"...), "abababababab0123456789ab"},
		// 15+3 literals through one extension byte.
		{append([]byte{0xF0, 3}, "0123456789abcdefgh"...), "0123456789abcdefgh"},
		// match length 4+15+1 = 20 through one extension byte.
		{append([]byte{0x1F, 'z', 1, 0, 1, 0xC0}, "0123456789ab"...), strings.Repeat("z", 21) + "0123456789ab"},
		// The last token's match length is ignored (as liblz4 does).
		{[]byte{0x33, 'a', 'b', 'c'}, "abc"},
	} {
		got, err := DecodeLZ4Block(tc.in, len(tc.want))
		if err != nil || string(got) != tc.want {
			t.Errorf("%x: %q %v, want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range [][]byte{
		{0x10},                  // literal past the end
		{0x10, 'a', 5, 0},       // offset beyond output
		{0x10, 'a', 0, 0},       // offset 0
		{0x10, 'a', 1},          // truncated offset
		{0xF0},                  // truncated length
		{0x1F, 'a', 1, 0},       // truncated match length
		{0x1F, 'a', 1, 0, 0xFF}, // match overflow
	} {
		if _, err := DecodeLZ4Block(in, 8); err == nil {
			t.Errorf("%x: no error", in)
		}
	}
	if _, err := DecodeLZ4Block([]byte{0x20, 'a', 'b'}, 3); err == nil {
		t.Error("short output accepted")
	}
}

func TestBad(t *testing.T) {
	good := container(KindELF, 90, Flag64Bit|FlagCompressLZ4, []byte{0x30, 'a', 'b', 'c'}, 3)
	mut := func(off int, v uint64, n int) []byte {
		b := append([]byte(nil), good...)
		switch n {
		case 2:
			binary.LittleEndian.PutUint16(b[off:], uint16(v))
		case 4:
			binary.LittleEndian.PutUint32(b[off:], uint32(v))
		default:
			binary.LittleEndian.PutUint64(b[off:], v)
		}
		return b
	}
	for name, in := range map[string][]byte{
		"empty":          nil,
		"magic":          mut(0, 1, 4),
		"header size":    mut(6, 8, 2),
		"size":           mut(8, 1<<40, 8),
		"member header":  mut(16+4, 1000, 4),
		"small header":   mut(16+4, 8, 4),
		"payload":        mut(16+8, 1<<33, 8),
		"compressed":     mut(16+16, 100, 4),
		"trailing bytes": append(append([]byte(nil), good...), 1, 2),
	} {
		_, err := Parse(in)
		var e *elf.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want *elf.Error", name, err)
		}
	}
	for name, in := range map[string][]byte{
		"huge":    mut(16+56, 1<<40, 8),
		"algo":    mut(16+40, 0x1000, 8),
		"zstd":    mut(16+40, FlagCompressZstd, 8),
		"lz4 len": mut(16+56, 4, 8),
	} {
		cs, err := Parse(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := cs[0].Members[0].Contents(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzFatbin(f *testing.F) {
	objs, _ := filepath.Glob(filepath.Join(corpus, "*", "*.o"))
	for _, o := range objs[:4] {
		f.Add(relfatbin(f, read(f, o)))
	}
	f.Add(container(KindELF, 90, FlagCompressZstd, []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58, 0x11, 0, 0}, 2))
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, err := Parse(b)
		if err != nil {
			return
		}
		for _, c := range cs {
			for i := range c.Members {
				m := &c.Members[i]
				out, err := m.Contents()
				if err == nil && m.IsCompressed() && uint64(len(out)) != m.Uncompressed {
					t.Fatalf("member %d: %d bytes, header says %d", i, len(out), m.Uncompressed)
				}
			}
			Select(c.Members, 90)
		}
	})
}

// TestSelectCompatible checks the choice among members as nvlink 11.8
// makes it for a target no ELF member names exactly: the highest SM whose
// code runs there, ahead of PTX for the target itself; PTX only when no
// ELF member fits (probed with nvcc 11.8 fat objects, -arch=sm_86 and
// sm_89).
func TestSelectCompatible(t *testing.T) {
	elf80 := Member{Kind: KindELF, Arch: 80}
	elf86 := Member{Kind: KindELF, Arch: 86}
	elf87 := Member{Kind: KindELF, Arch: 87}
	elf90 := Member{Kind: KindELF, Arch: 90}
	ptx86 := Member{Kind: KindPTX, Arch: 86}
	ptx80 := Member{Kind: KindPTX, Arch: 80}
	for _, tc := range []struct {
		ms     []Member
		arch   int
		want   int
		choice Choice
	}{
		{[]Member{elf80, elf90}, 86, 0, SASS},
		{[]Member{elf80, ptx86}, 86, 0, SASS},
		{[]Member{ptx86, elf80}, 86, 1, SASS},
		{[]Member{elf80, elf86, elf90}, 89, 1, SASS},
		{[]Member{elf86, elf80}, 86, 0, SASS}, // the exact one
		{[]Member{elf87, ptx80}, 89, 1, PTXOnly},
		{[]Member{elf80}, 87, -1, NoCode},
		{[]Member{elf90, ptx86}, 89, 1, PTXOnly},
		{[]Member{elf86}, 80, -1, NoCode},
	} {
		if i, ch := Select(tc.ms, tc.arch); i != tc.want || ch != tc.choice {
			t.Errorf("Select(%v, %d) = %d, %v; want %d, %v", tc.ms, tc.arch, i, ch, tc.want, tc.choice)
		}
	}
}

// TestSelectPTX checks the member a virtual target takes: the PTX of the
// highest SM up to it, never an ELF member (virtual-target-fatbin).
func TestSelectPTX(t *testing.T) {
	elf80 := Member{Kind: KindELF, Arch: 80}
	ptx75 := Member{Kind: KindPTX, Arch: 75}
	ptx80 := Member{Kind: KindPTX, Arch: 80}
	ptx90 := Member{Kind: KindPTX, Arch: 90}
	for _, tc := range []struct {
		ms     []Member
		arch   int
		want   int
		choice Choice
	}{
		{[]Member{elf80}, 80, -1, NoCode},
		{[]Member{elf80, ptx80}, 80, 1, PTXOnly},
		{[]Member{elf80, ptx80}, 90, 1, PTXOnly},
		{[]Member{ptx75, ptx80, ptx90}, 86, 1, PTXOnly},
		{[]Member{ptx80, ptx75}, 80, 0, PTXOnly},
		{[]Member{elf80, ptx90}, 86, -1, NoCode},
		{nil, 90, -1, NoCode},
	} {
		if i, ch := SelectPTX(tc.ms, tc.arch); i != tc.want || ch != tc.choice {
			t.Errorf("SelectPTX(%v, %d) = %d, %v; want %d, %v", tc.ms, tc.arch, i, ch, tc.want, tc.choice)
		}
	}
}

func TestZstdWrongSize(t *testing.T) {
	cubin := read(t, filepath.Join(corpus, "archive", "lib.cubin"))
	enc, _ := zstd.NewWriter(nil)
	z := enc.EncodeAll(cubin, nil)
	for _, n := range []int{len(cubin) - 1, len(cubin) + 1} {
		cs, err := Parse(container(KindELF, 80, Flag64Bit|FlagCompressZstd, z, n))
		if err != nil {
			t.Fatal(err)
		}
		if b, err := cs[0].Members[0].Contents(); err == nil {
			t.Errorf("%d bytes declared, %d decoded: no error", n, len(b))
		}
	}
}
