package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/elf/hostobj"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/hugemem"
)

const (
	corpus   = "../../testdata/corpus/cuda11.8-sm_90"
	devrtLib = "../../testdata/cudalib/libcudadevrt.a"
)

func read(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func arch(p string) string { return filepath.Join(corpus, "archive", p) }

func TestCorpusDC(t *testing.T) {
	var bag diag.Bag
	us, err := Load(arch("main.o"), Target{SM: 90}, &bag, 0, nil)
	if err != nil || len(us) != 1 || us[0].Name != arch("main.o") || !bytes.Equal(us[0].Data, read(t, arch("main.cubin"))) {
		t.Fatalf("main.o: %v %+v", err, us)
	}
	if !strings.Contains(us[0].ModuleID, "_main_cu_") || us[0].FromArchive {
		t.Errorf("main.o: %+v", us[0])
	}
	// libdev.a (nvcc -lib): every member, named archive:member, whole archive.
	us, err = Load(arch("libdev.a"), Target{SM: 90}, &bag, 1, nil)
	if err != nil || len(us) != 2 {
		t.Fatalf("libdev.a: %v %d units", err, len(us))
	}
	for i, m := range []string{"lib", "lib2"} {
		u := us[i]
		if u.Name != arch("libdev.a")+":"+m+".o" || !u.FromArchive || u.System || !bytes.Equal(u.Data, read(t, arch(m+".cubin"))) {
			t.Errorf("member %d: %s %v %v", i, u.Name, u.FromArchive, u.System)
		}
	}
	// libdev_cubin.a (ar of cubins): nvlink ignores cubin members, which
	// is why the corpus link over it fails with an undefined reference.
	us, err = Load(arch("libdev_cubin.a"), Target{SM: 90}, &bag, 2, nil)
	if err != nil || len(us) != 0 {
		t.Errorf("libdev_cubin.a: %v %+v", err, us)
	}
	if d := bag.Sorted(); len(d) != 0 {
		t.Errorf("diagnostics: %+v", d)
	}
	if !strings.Contains(string(read(t, arch("ref.log"))), "Undefined reference to '_Z6lib_fnf'") {
		t.Error("corpus ref.log no longer shows the cubin-archive failure")
	}
}

func TestCudadevrt(t *testing.T) {
	var bag diag.Bag
	us, err := Load(devrtLib, Target{SM: 90}, &bag, 0, nil)
	if err != nil || len(us) != 1 {
		t.Fatalf("%v %+v", err, us)
	}
	u := us[0]
	f, err := elf.Parse(u.Data)
	if err != nil || f.Header.Type != elf.ETRel || f.Header.SM() != 90 || !u.System || !u.FromArchive || u.Name != devrtLib+":cuda_device_runtime.o" {
		t.Errorf("%s system=%v: %v", u.Name, u.System, err)
	}
	us, err = Load(devrtLib, Target{SM: 80}, &bag, 0, nil)
	if err != nil || len(us) != 1 || us[0].Data == nil {
		t.Errorf("sm_80: %v %d", err, len(us))
	}
}

func TestSeen(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libdev.a")
	os.WriteFile(lib, read(t, arch("libdev.a")), 0o644)
	os.Symlink(lib, filepath.Join(dir, "link.a"))
	var seen Seen
	var bag diag.Bag
	for i, p := range []string{lib, filepath.Join(dir, ".", "libdev.a"), filepath.Join(dir, "link.a")} {
		us, err := Load(p, Target{SM: 90}, &bag, i, &seen)
		if err != nil || (i == 0) != (len(us) == 2) {
			t.Errorf("%s: %v %d units", p, err, len(us))
		}
	}
	// Objects are not deduplicated (nvlink reports a multiple definition).
	for i := 0; i < 2; i++ {
		if us, _ := Load(arch("lib.o"), Target{SM: 90}, &bag, i, &seen); len(us) != 1 {
			t.Errorf("lib.o #%d: %d units", i, len(us))
		}
	}
}

func TestFindLibrary(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	host := testArchive(elfHead(62), elfHead(190)) // an x86-64 object among cubins
	os.WriteFile(filepath.Join(b, "libfoo.a"), host, 0o644)
	os.Mkdir(filepath.Join(a, "libbar.a"), 0o755)
	if p, ok := FindLibrary("foo", []string{a, filepath.Join(a, "none"), b}); !ok || p != filepath.Join(b, "libfoo.a") {
		t.Errorf("foo: %q %v", p, ok)
	}
	if _, ok := FindLibrary("bar", []string{a}); ok {
		t.Error("directory accepted as a library")
	}
	t.Setenv("LIBRARY_PATH", b)
	if _, ok := FindLibrary("foo", nil); ok {
		t.Error("LIBRARY_PATH consulted")
	}
	// Archives without a host object are skipped, and the search goes on.
	for _, bad := range [][]byte{testArchive(), testArchive(elfHead(190)), testArchive([]byte("hello\n"))} {
		os.WriteFile(filepath.Join(c, "libfoo.a"), bad, 0o644)
		p, ok, skipped := FindLibrarySkipping("foo", []string{c, b})
		if !ok || p != filepath.Join(b, "libfoo.a") || len(skipped) != 1 || skipped[0] != c+"/libfoo.a" {
			t.Errorf("%q: found %q %v, skipped %q", bad, p, ok, skipped)
		}
	}
}

// elfHead is the first 20 bytes of a little-endian ELF64 file of machine m.
func elfHead(m uint16) []byte {
	h := make([]byte, 20)
	copy(h, "\x7fELF\x02\x01\x01")
	h[18], h[19] = byte(m), byte(m>>8)
	return h
}

// testArchive is an ar archive of the members given (named m0, m1, ...).
func testArchive(members ...[]byte) []byte {
	out := []byte("!<arch>\n")
	for i, m := range members {
		out = append(out, fmt.Sprintf("%-16s%-12d%-6d%-6d%-8o%-10d`\n", fmt.Sprintf("m%d/", i), 0, 0, 0, 0o644, len(m))...)
		out = append(out, m...)
		if len(m)%2 == 1 {
			out = append(out, '\n')
		}
	}
	return out
}

// patchFatbin rewrites a relocatable fatbin in place: the ELF member gets
// SM sm, and the PTX member (second) is cut off and zeroed.
func patchFatbin(t *testing.T, fb []byte, sm int) {
	t.Helper()
	cs, err := fatbin.Parse(fb)
	if err != nil || len(cs[0].Members) != 2 || cs[0].Members[0].Kind != fatbin.KindELF {
		t.Fatalf("unexpected fatbin: %v", err)
	}
	ptx := cs[0].Members[1].Offset
	binary.LittleEndian.PutUint64(fb[8:], uint64(ptx-16))
	clear(fb[ptx:])
	binary.LittleEndian.PutUint32(fb[cs[0].Members[0].Offset+28:], uint32(sm))
}

// oracleCase is one crafted input: what Expand must do and, unless noOracle,
// what real nvlink prints for the same file.
type oracleCase struct {
	file     string
	data     []byte
	units    int
	out      []string // diagnostics as printed under the name "nvlink"
	fatal    bool
	noOracle bool // warplink deliberately differs (JIT)
}

func cases(t *testing.T) []oracleCase {
	// lib2 is self-contained, so nvlink links it alone without errors.
	cubin, hostO := read(t, arch("lib2.cubin")), read(t, arch("lib2.o"))
	garbage := bytes.Repeat([]byte("garbage!"), 25)
	sm80 := bytes.Clone(read(t, arch("lib.cubin")))
	sm80[48] = 80 // e_flags low byte: the SM
	ho, err := hostobj.Parse(hostO)
	if err != nil {
		t.Fatal(err)
	}
	relfatbin := ho.Fatbin
	fb80 := bytes.Clone(relfatbin)
	patchFatbin(t, fb80, 80)
	host80 := bytes.Clone(hostO)
	ho2, _ := hostobj.Parse(host80)
	off := bytes.Index(host80, ho2.Fatbin)
	patchFatbin(t, host80[off:off+len(ho2.Fatbin)], 80)
	ptxMember := func() []byte { // a .ptx file holding the PTX text of lib2.o
		cs, _ := fatbin.Parse(relfatbin)
		b, err := cs[0].Members[1].Contents()
		if err != nil {
			t.Fatal(err)
		}
		return bytes.TrimRight(b, "\x00")
	}
	cof := func(f string) string { return "nvlink fatal   : Could not open input file '" + f + "'" }
	binFmt := []string{"nvlink error   : Binary format for key='0', ident='' is not recognized", "nvlink fatal   : elfLink fatbinary error"}
	return []oracleCase{
		{file: "short.cubin", data: []byte("hello\n"), out: []string{cof("short.cubin")}, fatal: true},
		{file: "short.o", data: cubin[:51], out: []string{cof("short.o")}, fatal: true},
		{file: "short.so", data: cubin[:51], out: []string{cof("short.so")}, fatal: true},
		{file: "g.cubin", data: garbage, out: []string{"nvlink fatal   : cubin not an elf?"}, fatal: true},
		{file: "tiny.cubin", data: []byte("!<arch>\n"), out: []string{"nvlink fatal   : cubin not an elf?"}, fatal: true},
		{file: "host.cubin", data: hostO, out: []string{"nvlink fatal   : cubin not a device elf?"}, fatal: true},
		{file: "sm80.cubin", data: sm80, out: []string{"nvlink fatal   : Input file 'sm80.cubin' arch does not match target 'sm_90'"}, fatal: true},
		{file: "exec.cubin", data: read(t, arch("ref_dc.cubin"))},
		{file: "main.cubin", data: cubin, units: 1},
		{file: "main.bin", data: cubin},
		{file: "mainc.o", data: cubin},
		{file: "main.bin2", data: hostO, units: 1},
		{file: "sm80.o", data: sm80},
		{file: "exec.o", data: read(t, arch("ref_dc.cubin"))},
		{file: "main.so", data: cubin},
		{file: "host.so", data: hostO},
		{file: "g.o", data: garbage},
		{file: "g.a", data: garbage},
		{file: "tiny.o", data: []byte("!<arch>\n")},
		{file: "libdev.so", data: read(t, arch("libdev.a")), units: 2},
		{file: "libdev_cubin.a", data: read(t, arch("libdev_cubin.a"))},
		{file: "g.fatbin", data: garbage, out: []string{"nvlink fatal   : fatbin wrong format?"}, fatal: true},
		{file: "cubin.fatbin", data: cubin, out: []string{"nvlink fatal   : fatbin wrong format?"}, fatal: true},
		{file: "main.fatbin", data: relfatbin, units: 1},
		{file: "main_fb.bin", data: relfatbin},
		{file: "main_fb.o", data: relfatbin},
		{file: "sm80.fatbin", data: fb80, out: []string{"nvlink warning : SM Arch ('sm_90') not found in 'sm80.fatbin'"}},
		{file: "sm80host.o", data: host80, out: []string{"nvlink warning : SM Arch ('sm_90') not found in 'sm80host.o'"}},
		{file: "g.ptx", data: garbage, out: binFmt, fatal: true},
		{file: "host.ptx", data: hostO, out: binFmt, fatal: true},
		{file: "cubin.ptx", data: cubin, units: 1},
		{file: "sm80.ptx", data: sm80, out: []string{"nvlink fatal   : Input file 'sm80.ptx' arch does not match target 'sm_90'"}, fatal: true},
		{file: "fatbin.ptx", data: relfatbin, units: 1},
		{file: "main.ptx", data: ptxMember(), out: []string{"nvlink fatal   : 'main.ptx': PTX input needs JIT compilation by ptxas, which warplink does not do"}, fatal: true, noOracle: true},
	}
}

// TestClassify checks Expand on crafted inputs and, where the toolkit is
// installed, that real nvlink prints the same diagnostics with the same
// exit status for each file linked alone.
func TestClassify(t *testing.T) {
	nvlink, lookErr := exec.LookPath("nvlink")
	dir := t.TempDir()
	for _, c := range cases(t) {
		t.Run(c.file, func(t *testing.T) {
			var bag diag.Bag
			us, err := Expand(c.file, c.data, Target{SM: 90}, &bag, 0)
			var buf bytes.Buffer
			bag.Print(&buf, "nvlink")
			got := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if buf.Len() == 0 {
				got = nil
			}
			var fe *FatalError
			if len(us) != c.units || errors.As(err, &fe) != c.fatal || (err != nil && fe == nil) || fmt.Sprint(got) != fmt.Sprint(c.out) {
				t.Errorf("Expand: %d units, err %v, diags %q; want %d units, fatal %v, %q", len(us), err, got, c.units, c.fatal, c.out)
			}
			for _, u := range us {
				if f, err := elf.Parse(u.Data); err != nil || f.Header.Type != elf.ETRel || f.Header.SM() != 90 {
					t.Errorf("unit %s is not an sm_90 ET_REL cubin", u.Name)
				}
			}
			if lookErr != nil || c.noOracle {
				return
			}
			os.WriteFile(filepath.Join(dir, c.file), c.data, 0o644)
			cmd := exec.Command(nvlink, "-arch=sm_90", c.file, "-o", "out.cubin")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			rc := 0
			if ee, ok := err.(*exec.ExitError); ok {
				rc = ee.ExitCode()
			}
			want := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(out) == 0 {
				want = nil
			}
			if fmt.Sprint(want) != fmt.Sprint(c.out) || (rc == 1) != c.fatal {
				t.Errorf("nvlink: rc %d, %q; test expects fatal %v, %q", rc, want, c.fatal, c.out)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	var bag diag.Bag
	for _, p := range []string{filepath.Join(dir, "missing.cubin"), dir} {
		_, err := Load(p, Target{SM: 90}, &bag, 0, nil)
		var fe *FatalError
		if !errors.As(err, &fe) || fe.Msg != "Could not open input file '"+p+"'" {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// writeArchive writes a GNU archive (thin when thin is set) of the given
// files, named by their base names; members are read from dir.
func writeArchive(t *testing.T, path string, thin, bsd bool, files ...string) {
	var out bytes.Buffer
	out.WriteString(map[bool]string{false: "!<arch>\n", true: "!<thin>\n"}[thin])
	for _, f := range files {
		data := read(t, f)
		name := filepath.Base(f) + "/"
		if bsd {
			name = fmt.Sprintf("#1/%d", len(filepath.Base(f)))
			data = append([]byte(filepath.Base(f)), data...)
		}
		fmt.Fprintf(&out, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", len(data))
		if !thin {
			out.Write(data)
			if out.Len()%2 == 1 {
				out.WriteByte('\n')
			}
		}
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestArchiveForms(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"lib.o", "lib2.o"} {
		os.WriteFile(filepath.Join(dir, f), read(t, arch(f)), 0o644)
	}
	objs := []string{filepath.Join(dir, "lib.o"), filepath.Join(dir, "lib2.o")}
	writeArchive(t, filepath.Join(dir, "thin.a"), true, false, objs...)
	writeArchive(t, filepath.Join(dir, "bsd.a"), false, true, objs...)
	var bag diag.Bag
	us, err := Load(filepath.Join(dir, "thin.a"), Target{SM: 90}, &bag, 0, nil)
	if err != nil || len(us) != 2 || us[1].Name != filepath.Join(dir, "thin.a")+":lib2.o" || us[1].Path != objs[1] || !bytes.Equal(us[1].Data, read(t, arch("lib2.cubin"))) {
		t.Errorf("thin: %v %+v", err, us)
	}
	// nvlink silently drops BSD-named members (the link then fails with
	// "Undefined reference").
	if us, err := Load(filepath.Join(dir, "bsd.a"), Target{SM: 90}, &bag, 0, nil); err != nil || len(us) != 0 {
		t.Errorf("bsd: %v %+v", err, us)
	}
	os.Remove(objs[0])
	var fe *FatalError
	if _, err := Load(filepath.Join(dir, "thin.a"), Target{SM: 90}, &bag, 0, nil); !errors.As(err, &fe) {
		t.Errorf("thin with a missing member: %v", err)
	}
}

func FuzzExpand(f *testing.F) {
	for _, p := range []string{"main.cubin", "lib.o", "libdev.a"} {
		b, err := os.ReadFile(arch(p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(p, b)
	}
	f.Add("x.fatbin", []byte{0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, name string, b []byte) {
		switch filepath.Ext(name) {
		case ".cubin", ".fatbin", ".ptx", ".o", ".a":
		default:
			name += ".o"
		}
		if ar := len(b) >= 8 && string(b[1:7]) == "<thin>"; ar {
			return // thin members would be read from disk
		}
		var bag diag.Bag
		us, err := Expand(filepath.Base(name), b, Target{SM: 90}, &bag, 0)
		if err != nil && !bag.Failed() {
			t.Fatalf("error %v without a diagnostic", err)
		}
		for _, u := range us {
			if !isDeviceELF(u.Data) {
				t.Fatalf("unit %s is not a device ELF", u.Name)
			}
		}
		// Keeping the cubins elsewhere, with or without dropping the
		// decoded sections (a link's paths), gives the same units, the
		// same diagnostics and the same tables, from a buffer clobbered
		// afterwards.
		for _, d := range []func(*elf.Section) bool{nil, testDrop} {
			var kbag diag.Bag
			tmp := bytes.Clone(b)
			x := &expander{arch: 90, diags: &kbag, keep: func(n int) []byte { return make([]byte, n) }, drop: d}
			ks, kerr := x.expand(filepath.Base(name), tmp)
			clear(tmp)
			if (err == nil) != (kerr == nil) || len(ks) != len(us) || !reflect.DeepEqual(bag.Sorted(), kbag.Sorted()) {
				t.Fatalf("kept (drop %v): %d units, error %v, diagnostics %v; plain: %d, %v, %v", d != nil, len(ks), kerr, kbag.Sorted(), len(us), err, bag.Sorted())
			}
			for i, k := range ks {
				u := us[i]
				if k.Name != u.Name || k.Size != len(u.Data) || !reflect.DeepEqual(k.ELF.Symbols, u.ELF.Symbols) || len(k.ELF.Sections) != len(u.ELF.Sections) {
					t.Fatalf("unit %d kept (drop %v) differs from plain", i, d != nil)
				}
				for j := range u.ELF.Sections {
					ks, us := &k.ELF.Sections[j], &u.ELF.Sections[j]
					if k.ELF.SecName(j) != u.ELF.SecName(j) || (d == nil || !d(us)) && !bytes.Equal(ks.Data(), us.Data()) {
						t.Fatalf("unit %d section %d kept (drop %v) differs from plain", i, j, d != nil)
					}
				}
			}
		}
	})
}

// testDrop is what a link drops from the cubins it keeps: the symbol and
// relocation tables, decoded before Release.
func testDrop(s *elf.Section) bool {
	return s.Type == elf.SHTSymtab || s.Type == elf.SHTRela || s.Type == elf.SHTRel
}

// loadAll loads every path with mem; each must give units.
func loadAll(t *testing.T, paths []string, mem *Memory) [][]Unit {
	t.Helper()
	var all [][]Unit
	for _, p := range paths {
		var bag diag.Bag
		us, err := LoadInto(p, Target{SM: 90}, &bag, 0, nil, mem)
		if err != nil || len(us) == 0 {
			t.Fatalf("%s: %v, %d units", p, err, len(us))
		}
		all = append(all, us)
	}
	return all
}

// checkUnits compares the units LoadInto gave for path with Load's: same
// names, module, whole size and symbols, less kept than the file, and every
// section's contents, except that those drop names are nil once released
// and Load's until then.
func checkUnits(t *testing.T, path string, us []Unit, drop func(*elf.Section) bool, released bool) {
	t.Helper()
	var bag diag.Bag
	want, err := Load(path, Target{SM: 90}, &bag, 0, nil)
	if err != nil || len(want) != len(us) {
		t.Fatalf("%s: Load: %v, %d units for %d", path, err, len(want), len(us))
	}
	for j, u := range us {
		w := want[j]
		wf, err := elf.Parse(w.Data)
		if err != nil || u.Name != w.Name || u.ModuleID != w.ModuleID || u.Size != len(w.Data) || len(u.Data) >= len(w.Data) ||
			!reflect.DeepEqual(u.ELF.Symbols, wf.Symbols) || len(u.ELF.Sections) != len(wf.Sections) {
			t.Errorf("%s: unit %d differs from Load's (kept %d of %d bytes)", path, j, len(u.Data), len(w.Data))
			continue
		}
		for i := range wf.Sections {
			s, ws := &u.ELF.Sections[i], &wf.Sections[i]
			dropped := drop != nil && drop(ws)
			if u.ELF.SecName(i) != wf.SecName(i) || dropped && released && s.Data() != nil || !(dropped && released) && !bytes.Equal(s.Data(), ws.Data()) {
				t.Errorf("%s: unit %d: section %d (%s) differs (dropped %v, released %v)", path, j, i, wf.SecName(i), dropped, released)
			}
		}
	}
}

// TestLoadIntoKeep checks LoadInto with memory to keep the cubins in: every
// unit keeps its sections' contents as Load has them but not the whole
// file, parses to the same tables, and none aliases the scratch buffer the
// next file is read into (the units of earlier loads stay intact).
func TestLoadIntoKeep(t *testing.T) {
	var kept int
	mem := &Memory{Keep: func(n int) []byte { kept += n; return make([]byte, n) }}
	paths := []string{arch("main.o"), arch("libdev.a"), arch("main.cubin"), devrtLib}
	for k, us := range loadAll(t, paths, mem) {
		checkUnits(t, paths[k], us, nil, false)
		for _, u := range us {
			// ptxas lays sections out in order: the compact parse takes
			// every cubin of the corpus.
			if !u.InOrder {
				t.Errorf("%s: not parsed compact", u.Name)
			}
		}
	}
	if kept == 0 {
		t.Error("nothing was kept with mem.Keep")
	}
	// Without Keep nothing checks the layout.
	if us, err := Load(arch("main.cubin"), Target{SM: 90}, &diag.Bag{}, 0, nil); err != nil || len(us) != 1 || us[0].InOrder {
		t.Errorf("Load: %v, %d units, InOrder %v", err, len(us), len(us) > 0 && us[0].InOrder)
	}
}

// TestLoadIntoDrop checks LoadInto with sections to drop: the units keep
// every other section's contents as Load has them (and parse to the same
// symbols), the dropped ones are readable until Release and cleared by it,
// and loading more files after Release leaves earlier units intact.
func TestLoadIntoDrop(t *testing.T) {
	mem := &Memory{Keep: func(n int) []byte { return make([]byte, n) }, Drop: testDrop}
	paths := []string{arch("main.o"), arch("libdev.a"), arch("main.cubin"), devrtLib}
	var all [][]Unit
	for _, p := range paths {
		us := loadAll(t, []string{p}, mem)[0]
		checkUnits(t, p, us, testDrop, false)
		mem.Release(us)
		all = append(all, us)
	}
	for k, us := range all {
		checkUnits(t, paths[k], us, testDrop, true)
	}
}

// TestLoadMapped loads the corpus's inputs mapped (Memory.MapFrom 1: every
// file), one at a time and through a ring, and requires what TestLoadIntoDrop
// does of read ones (a ring maps only what its first read did not take
// whole); each file's mapping is held by its first unit until
// Release, which unmaps it (a unit still pointing into it would fault in
// the checks after).
func TestLoadMapped(t *testing.T) {
	paths := []string{arch("main.o"), arch("libdev.a"), arch("main.cubin"), devrtLib}
	rings := []*Ring{nil}
	if r := NewRing(); r != nil {
		defer r.Close()
		rings = append(rings, r)
	} else {
		t.Log("no io_uring here: only the one-at-a-time path is tested")
	}
	for _, ring := range rings {
		mem := &Memory{Keep: func(n int) []byte { return make([]byte, n) }, Drop: testDrop, MapFrom: 1}
		var all [][]Unit
		for k, p := range paths {
			files := []File{{Path: p}}
			mem.ReadBatch(ring, files)
			if files[0].Err != nil {
				t.Fatalf("%s: %v", p, files[0].Err)
			}
			// (A ring's first read takes a file of up to 16 KiB whole:
			// only longer ones are left to map.)
			st, _ := os.Stat(p)
			mapped := mapsFiles && (ring == nil || st.Size() > 16<<10)
			if (files[0].mapped != nil) != mapped {
				t.Fatalf("%s (%d bytes, ring %v): mapped %v, want %v", p, st.Size(), ring != nil, files[0].mapped != nil, mapped)
			}
			us, err := LoadFile(&files[0], Target{SM: 90}, &diag.Bag{}, k, nil, mem)
			if err != nil || len(us) == 0 {
				t.Fatalf("%s: %v, %d units", p, err, len(us))
			}
			if mapped && us[0].mapped == nil {
				t.Fatalf("%s: the first unit does not hold the mapping", p)
			}
			checkUnits(t, p, us, testDrop, false)
			mem.Release(us)
			if us[0].mapped != nil {
				t.Fatalf("%s: Release left the mapping", p)
			}
			all = append(all, us)
		}
		for k, us := range all {
			checkUnits(t, paths[k], us, testDrop, true)
		}
	}
	// A file that brings nothing is unmapped at once.
	mem := &Memory{Keep: func(n int) []byte { return make([]byte, n) }, Drop: testDrop, MapFrom: 1}
	txt := filepath.Join(t.TempDir(), "notes.o")
	if err := os.WriteFile(txt, bytes.Repeat([]byte("not an object\n"), 8), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []File{{Path: txt}}
	mem.ReadBatch(nil, files)
	if us, err := LoadFile(&files[0], Target{SM: 90}, &diag.Bag{}, 0, nil, mem); err != nil || len(us) != 0 || files[0].mapped != nil {
		t.Fatalf("a text file: %v, %d units, mapping %v", err, len(us), files[0].mapped != nil)
	}
}

// TestLoadIntoDropSurvivesGC loads host objects, whose cubins are
// decompressed into buffers of their own, with the tables outside the Go
// heap (as a link places them), collects garbage and reuses the freed
// memory, then checks the dropped sections still hold their bytes until
// Release: what they point into must be kept alive from the heap (once it
// was not, and relocations were decoded from freed memory).
func TestLoadIntoDropSurvivesGC(t *testing.T) {
	var arena hugemem.Arena
	defer arena.Free()
	mem := &Memory{Keep: arena.Alloc, Tables: arena.AllocMapped, Drop: testDrop}
	paths := []string{arch("main.o"), arch("libdev.a")}
	loaded := loadAll(t, paths, mem)
	if !arena.OffHeap() {
		t.Skip("no off-heap memory on this system: the tables are scanned")
	}
	var junk [][]byte
	for range 4 {
		runtime.GC()
		for range 256 {
			junk = append(junk, bytes.Repeat([]byte{0xA5}, 8<<10))
		}
	}
	runtime.KeepAlive(junk)
	for k, us := range loaded {
		checkUnits(t, paths[k], us, testDrop, false)
		mem.Release(us)
	}
}
