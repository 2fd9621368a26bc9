package input

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/warplink/warplink/bench/gen"
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
