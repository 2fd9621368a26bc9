package gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/warplink/warplink/elf/ar"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/elf/hostobj"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/input"
)

// TestHostObject wraps a corpus cubin as a host object and reads it back
// with the fatbinary and host-object decoders and with the linker's own
// input classification: one relocatable fatbinary member, stored, for
// sm_90, holding the cubin's bytes, beside the control section and the
// module ID.
func TestHostObject(t *testing.T) {
	cubin, err := os.ReadFile(filepath.Join(corpus, "xcall/b.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	b := HostObject(cubin, ModuleID(7), 90)
	o, err := hostobj.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !o.HasDeviceCode() || o.NonRelocatable || o.ModuleID != ModuleID(7) {
		t.Fatalf("host object: device code %v, non-relocatable %v, module %q", o.HasDeviceCode(), o.NonRelocatable, o.ModuleID)
	}
	cs, err := fatbin.Parse(o.Fatbin)
	if err != nil || len(cs) != 1 || len(cs[0].Members) != 1 {
		t.Fatalf("fatbinary: %v, %d containers", err, len(cs))
	}
	m := cs[0].Members[0]
	if m.Kind != fatbin.KindELF || m.Arch != 90 || m.IsCompressed() || !bytes.Equal(m.Payload[:len(cubin)], cubin) {
		t.Fatalf("member: kind %d, sm_%d, compressed %v, payload %d bytes", m.Kind, m.Arch, m.IsCompressed(), len(m.Payload))
	}
	units, err := input.Expand("b.o", b, input.Target{SM: 90}, &diag.Bag{}, 0)
	if err != nil || len(units) != 1 || !bytes.Equal(units[0].Data, cubin) || units[0].ModuleID != ModuleID(7) {
		t.Fatalf("input.Expand: %v, %d units", err, len(units))
	}
}

// TestArchive checks that an archive written by Archive reads back with
// the linker's archive decoder: every member, in order, with its name and
// bytes (odd sizes padded).
func TestArchive(t *testing.T) {
	ms := []ArchiveMember{{"o000000.o", []byte("abc")}, {"o000001.o", []byte("defg")}, {"empty.o", nil}}
	a, err := ar.Parse(Archive(ms))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Members) != len(ms) || a.Thin {
		t.Fatalf("%d members (thin %v), want %d", len(a.Members), a.Thin, len(ms))
	}
	for i, m := range a.Members {
		if m.Name != ms[i].Name || !bytes.Equal(m.Data, ms[i].Data) {
			t.Errorf("member %d: %q (%d bytes), want %q (%d bytes)", i, m.Name, len(m.Data), ms[i].Name, len(ms[i].Data))
		}
	}
}

// TestNvlinkHostForms links a 200-object workload with the real nvlink as
// cubins, as host objects and as one archive of them: the three outputs
// are the same bytes, and warplink's links of the two new forms give them
// too.
func TestNvlinkHostForms(t *testing.T) {
	nvlink, err := exec.LookPath("nvlink")
	if err != nil {
		t.Skip("nvlink not on PATH")
	}
	dir, names := writeWorkload(t, corpus, 200)
	var hosts []string
	var members []ArchiveMember
	for i, n := range names {
		cubin, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		h := HostObject(cubin, ModuleID(i), 90)
		hosts = append(hosts, HostObjectName(i))
		members = append(members, ArchiveMember{HostObjectName(i), h})
		if err := os.WriteFile(filepath.Join(dir, HostObjectName(i)), h, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "libbench.a"), Archive(members), 0o644); err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, form := range []struct {
		name   string
		inputs []string
	}{{"cubins", names}, {"host objects", hosts}, {"archive", []string{"libbench.a"}}} {
		ref := nvlinkBytes(t, nvlink, Arch, dir, form.inputs)
		if want == nil {
			want = ref
		} else if !bytes.Equal(ref, want) {
			t.Errorf("%s: nvlink's output differs from its link of the cubins", form.name)
		}
		if got := warplinkBytes(t, Arch, dir, form.inputs); !bytes.Equal(got, ref) {
			t.Errorf("%s: warplink's output (%d bytes) differs from nvlink's (%d bytes)", form.name, len(got), len(ref))
		}
	}
}
