package nvvmproto

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/elf/hostobj"
)

// seedIR returns the NVVM IR members of an nvcc -dlto object of the
// bundled jit cases, as warplink sends them to the helper.
func seedIR(f *testing.F) []Module {
	const path = "../../testdata/jit/hostref/g.lto80.o"
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	o, err := hostobj.Parse(b)
	if err != nil || !o.HasDeviceCode() {
		f.Fatalf("%s: %v", path, err)
	}
	cs, err := fatbin.Parse(o.Fatbin)
	if err != nil {
		f.Fatal(err)
	}
	var ms []Module
	for _, c := range cs {
		for i := range c.Members {
			if m := &c.Members[i]; m.Kind == fatbin.KindNVVM {
				ir, err := m.Contents()
				if err != nil {
					f.Fatal(err)
				}
				ms = append(ms, Module{Name: path, Data: ir})
			}
		}
	}
	if len(ms) == 0 {
		f.Fatalf("%s: no NVVM member", path)
	}
	return ms
}

// FuzzReadRequest checks that ReadRequest never panics, and that a request
// it accepts encodes back to the bytes it was read from (a prefix of the
// input: the helper reads one request) and reads back the same.
func FuzzReadRequest(f *testing.F) {
	var b bytes.Buffer
	WriteRequest(&b, &Request{NVVMPath: "/usr/lib/libnvvm.so", Options: []string{"-arch=compute_80", "-link-lto"}, Modules: seedIR(f)})
	f.Add(b.Bytes())
	b.Reset()
	WriteRequest(&b, &Request{})
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		req, err := ReadRequest(bytes.NewReader(in))
		if err != nil {
			checkError(t, err)
			return
		}
		var out bytes.Buffer
		if err := WriteRequest(&out, req); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(in, out.Bytes()) {
			t.Fatalf("request re-encodes to %d bytes that do not start the input", out.Len())
		}
		if again, err := ReadRequest(&out); err != nil || !reflect.DeepEqual(again, req) {
			t.Fatalf("re-encoded request reads back differently (%v)", err)
		}
	})
}

// FuzzReadReply is FuzzReadRequest for the helper's reply.
func FuzzReadReply(f *testing.F) {
	ms := seedIR(f)
	var b bytes.Buffer
	WriteReply(&b, &Reply{Status: Compiled, Message: "/usr/lib/libnvvm.so", Log: []byte("warning: x\n"), PTX: ms[0].Data})
	f.Add(b.Bytes())
	b.Reset()
	WriteReply(&b, &Reply{Status: AddFailed, Result: -1, Module: 1, Message: "bad"})
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, in []byte) {
		rep, err := ReadReply(bytes.NewReader(in))
		if err != nil {
			checkError(t, err)
			return
		}
		var out bytes.Buffer
		if err := WriteReply(&out, rep); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(in, out.Bytes()) {
			t.Fatalf("reply re-encodes to %d bytes that do not start the input", out.Len())
		}
		if again, err := ReadReply(&out); err != nil || !reflect.DeepEqual(again, rep) {
			t.Fatalf("re-encoded reply reads back differently (%v)", err)
		}
	})
}

// checkError requires a decoding error to name the exchange and, for a
// short stream, to say it ended early.
func checkError(t *testing.T, err error) {
	t.Helper()
	if !strings.HasPrefix(err.Error(), "nvvmproto: ") {
		t.Fatalf("error %q does not name the exchange", err)
	}
	if errors.Is(err, io.EOF) && !strings.HasSuffix(err.Error(), ": EOF") {
		t.Fatalf("error %q", err)
	}
}

// TestForgedBlockLength reads a reply whose log claims 16 GiB (maxBlock)
// on a stream that ends after a few bytes: it fails as truncated without
// allocating the claimed length first (the decoder did, and a fuzzed
// input ran the process out of memory).
func TestForgedBlockLength(t *testing.T) {
	in := []byte(magic)
	in = append(in, make([]byte, 12)...) // status, result, module
	in = append(in, 0, 0, 0, 0)          // message ""
	in = append(in, 0, 0, 0, 0, 4, 0, 0, 0, 'l', 'o', 'g')
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadReply(bytes.NewReader(in))
	runtime.ReadMemStats(&after)
	if err == nil || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, want a truncated block", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
		t.Errorf("allocated %d bytes for a 3-byte block claiming 16 GiB", n)
	}
}
