package nvvmproto

import (
	"bytes"
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	req := &Request{NVVMPath: "/x", Options: []string{"-arch=compute_80", "-link-lto"},
		Modules: []Module{{Name: "a.o", Data: []byte{0xED, 0x43, 0x4E, 0x7F}}, {Name: "lib.a:b.o", Data: []byte{}}}}
	var b bytes.Buffer
	if err := WriteRequest(&b, req); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRequest(&b)
	if err != nil || !reflect.DeepEqual(got, req) {
		t.Fatalf("request: %+v, %v", got, err)
	}
	rep := &Reply{Status: AddFailed, Result: -1, Module: 1, Message: "bad", Log: []byte("log"), PTX: []byte("ptx")}
	b.Reset()
	WriteReply(&b, rep)
	if got, err := ReadReply(&b); err != nil || !reflect.DeepEqual(got, rep) {
		t.Fatalf("reply: %+v, %v", got, err)
	}
	if _, err := ReadReply(bytes.NewReader([]byte("WLNVVM1\n\x00"))); err == nil {
		t.Error("a truncated reply was read")
	}
	if _, err := ReadRequest(bytes.NewReader([]byte("garbage!"))); err == nil {
		t.Error("garbage was read")
	}
}
