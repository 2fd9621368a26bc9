package input

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/warplink/warplink/bench/gen"
	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/internal/diag"
)

// TestArchiveParallel expands large archives of host objects on one
// goroutine and on several (expander.archiveParallel) and requires the
// same units in the same order, the same diagnostics under the same keys
// and the same error: a clean archive whose members include ones that
// bring nothing (sm_80 code only, a plain cubin, a text file), and the
// same with two bad fatbinaries, where only the first is reported and
// nothing after it counts.
func TestArchiveParallel(t *testing.T) {
	var cubins [][]byte
	for _, p := range []string{"xcall/a.cubin", "xcall/b.cubin", "xcall/c.cubin"} {
		b, err := os.ReadFile("../../testdata/corpus/cuda11.8-sm_90/" + p)
		if err != nil {
			t.Fatal(err)
		}
		cubins = append(cubins, b)
	}
	sm80, err := os.ReadFile("../../testdata/corpus/cuda11.8-sm_80/xcall/a.cubin")
	if err != nil {
		t.Fatal(err)
	}
	members := func(bad ...int) []gen.ArchiveMember {
		var ms []gen.ArchiveMember
		for i := 0; i < 3*parallelMembers; i++ {
			name := gen.HostObjectName(i)
			var data []byte
			switch i {
			case 5:
				data = gen.HostObject(sm80, gen.ModuleID(i), 80) // no sm_90 code: nothing
			case 7:
				data = cubins[0] // a cubin member: nvlink ignores it
			case 9:
				data = []byte("not an object\n")
			default:
				data = gen.HostObject(cubins[i%3], gen.ModuleID(i), 90)
			}
			for _, b := range bad {
				if i == b {
					var magic [4]byte
					binary.LittleEndian.PutUint32(magic[:], fatbin.Magic)
					data = bytes.Replace(data, magic[:], []byte("XXXX"), 1)
				}
			}
			ms = append(ms, gen.ArchiveMember{Name: name, Data: data})
		}
		return ms
	}
	expand := func(data []byte, workers int) ([]Unit, string, string) {
		bag := &diag.Bag{}
		x := &expander{arch: 90, diags: bag, file: 3, workers: workers}
		units, err := x.expand("libbench.a", data)
		var out bytes.Buffer
		for _, d := range bag.Sorted() {
			fmt.Fprintf(&out, "%v %v %s\n", d.Key, d.Sev, d.Msg)
		}
		return units, out.String(), fmt.Sprint(err)
	}
	for _, c := range []struct {
		name string
		bad  []int
	}{{"clean", nil}, {"bad members", []int{60, 150}}} {
		data := gen.Archive(members(c.bad...))
		su, sd, se := expand(data, 1)
		pu, pd, pe := expand(data, 4)
		if c.bad == nil && (se != "<nil>" || len(su) != 3*parallelMembers-3) {
			t.Fatalf("%s: serial expansion: %s, %d units", c.name, se, len(su))
		}
		if c.bad != nil && (su != nil || sd == "") {
			t.Fatalf("%s: serial expansion kept %d units, diagnostics %q", c.name, len(su), sd)
		}
		if pe != se || pd != sd {
			t.Errorf("%s: parallel error %q, diagnostics %q; serial %q, %q", c.name, pe, pd, se, sd)
		}
		if len(pu) != len(su) {
			t.Fatalf("%s: %d units in parallel, %d serially", c.name, len(pu), len(su))
		}
		for k := range su {
			if !reflect.DeepEqual(pu[k], su[k]) {
				t.Fatalf("%s: unit %d differs (%s / %s)", c.name, k, pu[k].Name, su[k].Name)
			}
		}
	}
}

// TestLoadMappedTruncated maps inputs (Memory.MapFrom), then truncates each
// file before it is loaded, as another process rewriting an input in place
// would: loading must fail with nvlink's diagnostic for an unreadable
// input instead of ending the process on the fault, for a cubin, for an
// archive expanded on one goroutine, and for one whose members are
// expanded on several (expander.archiveParallel).
func TestLoadMappedTruncated(t *testing.T) {
	if !mapsFiles {
		t.Skip("files are not mapped here")
	}
	cubin, archive := hostArchive(t, "xcall/a.cubin")
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		data    []byte
		workers int
	}{{"a.cubin", cubin, 1}, {"lib.a", archive, 1}, {"libpar.a", archive, 4}} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		mem := &Memory{Keep: func(n int) []byte { return make([]byte, n) }, Drop: func(*elf.Section) bool { return false },
			MapFrom: 1, Workers: c.workers}
		files := []File{{Path: path}}
		mem.ReadBatch(nil, files)
		if files[0].Err != nil || files[0].mapped == nil {
			t.Fatalf("%s: %v, mapped %v", c.name, files[0].Err, files[0].mapped != nil)
		}
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		bag := &diag.Bag{}
		units, err := LoadFile(&files[0], Target{SM: 90}, bag, 0, nil, mem)
		var fe *FatalError
		want := "Could not open input file '" + path + "'"
		if !errors.As(err, &fe) || fe.Msg != want || len(units) != 0 {
			t.Errorf("%s: %d units, error %v; want %q", c.name, len(units), err, want)
		}
		if ds := bag.Sorted(); len(ds) != 1 || ds[0].Msg != want {
			t.Errorf("%s: diagnostics %v", c.name, ds)
		}
	}
}

// TestGuard: a fault in guarded memory is a *FaultError; without a
// mapping, or for another panic, Guard changes nothing.
func TestGuard(t *testing.T) {
	if !mapsFiles {
		t.Skip("files are not mapped here")
	}
	path := filepath.Join(t.TempDir(), "f.bin")
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, 1<<16), 0o644); err != nil {
		t.Fatal(err)
	}
	data, mapped, err := readFileInto(path, nil, 1)
	if err != nil || mapped == nil {
		t.Fatalf("%v, mapped %v", err, mapped != nil)
	}
	defer unmapFile(mapped)
	sum := func() error {
		n := 0
		for _, b := range data {
			n += int(b)
		}
		if n != len(data) {
			return fmt.Errorf("sum %d", n)
		}
		return nil
	}
	if err := Guard(path, true, sum); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	var fe *FaultError
	if err := Guard(path, true, sum); !errors.As(err, &fe) || fe.Path != path {
		t.Fatalf("truncated file: %v", err)
	}
	if err := Guard(path, false, func() error { return errors.New("plain") }); err == nil || err.Error() != "plain" {
		t.Fatalf("unmapped: %v", err)
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Fatalf("recovered %v, want the panic to go on", r)
		}
	}()
	Guard(path, true, func() error { panic("other") })
}

// hostArchive reads the corpus's sm_90 cubin at name and returns it with
// an archive of 2*parallelMembers host objects that each wrap it (enough
// members for expander.archiveParallel).
func hostArchive(t *testing.T, name string) (cubin, archive []byte) {
	t.Helper()
	cubin, err := os.ReadFile("../../testdata/corpus/cuda11.8-sm_90/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var ms []gen.ArchiveMember
	for i := range 2 * parallelMembers {
		ms = append(ms, gen.ArchiveMember{Name: gen.HostObjectName(i), Data: gen.HostObject(cubin, gen.ModuleID(i), 90)})
	}
	return cubin, gen.Archive(ms)
}
