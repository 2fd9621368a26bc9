// Package nvvmproto is the exchange between warplink and its libnvvm
// helper, warplink-nvvm (see docs/design.md, "LTO: libnvvm in a helper
// process"): one request on the helper's standard input, one reply on its
// standard output. Strings and byte blocks are a little-endian u32 or u64
// length and the bytes.
package nvvmproto

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// magic opens a request and a reply (the version of the exchange).
const magic = "WLNVVM1\n"

// Module is one NVVM IR module, as a fatbinary member holds it (the
// ED 43 4E 7F wrapper included).
type Module struct {
	Name string // how nvlink names it: the path, or archive:member
	Data []byte
}

// Request is one libnvvm program: the library to load, its modules in
// order and nvvmCompileProgram's options.
type Request struct {
	NVVMPath string // -nvvmpath ("": none)
	Options  []string
	Modules  []Module
}

// Status says how far the helper got.
type Status uint32

const (
	Compiled  Status = iota // nvvmCompileProgram ran: Result holds its value
	NoLibrary               // no usable libnvvm (Message says which were tried)
	AddFailed               // adding module Module failed (Message: libnvvm's words)
	Failed                  // another libnvvm call failed (Message)
)

// Reply is what the helper found.
type Reply struct {
	Status  Status
	Result  int32  // nvvmCompileProgram's result (0, or 100: a whole program)
	Module  int32  // AddFailed: the module's index
	Message string // what went wrong, or the library used when Compiled
	Log     []byte // the program log (without its NUL)
	PTX     []byte // the compiled PTX (without its NUL)
}

// WriteRequest writes r to w.
func WriteRequest(w io.Writer, r *Request) error {
	b := bufio.NewWriter(w)
	b.WriteString(magic)
	putStr(b, r.NVVMPath)
	putU32(b, uint32(len(r.Options)))
	for _, o := range r.Options {
		putStr(b, o)
	}
	putU32(b, uint32(len(r.Modules)))
	for _, m := range r.Modules {
		putStr(b, m.Name)
		putBytes(b, m.Data)
	}
	return b.Flush()
}

// ReadRequest reads a request from rd.
func ReadRequest(rd io.Reader) (*Request, error) {
	d := &decoder{r: bufio.NewReader(rd)}
	d.magic()
	r := &Request{NVVMPath: d.str()}
	for n := d.u32(); n > 0 && d.err == nil; n-- {
		r.Options = append(r.Options, d.str())
	}
	for n := d.u32(); n > 0 && d.err == nil; n-- {
		r.Modules = append(r.Modules, Module{Name: d.str(), Data: d.bytes()})
	}
	return r, d.err
}

// WriteReply writes r to w.
func WriteReply(w io.Writer, r *Reply) error {
	b := bufio.NewWriter(w)
	b.WriteString(magic)
	putU32(b, uint32(r.Status))
	putU32(b, uint32(r.Result))
	putU32(b, uint32(r.Module))
	putStr(b, r.Message)
	putBytes(b, r.Log)
	putBytes(b, r.PTX)
	return b.Flush()
}

// ReadReply reads a reply from rd.
func ReadReply(rd io.Reader) (*Reply, error) {
	d := &decoder{r: bufio.NewReader(rd)}
	d.magic()
	r := &Reply{Status: Status(d.u32()), Result: int32(d.u32()), Module: int32(d.u32())}
	r.Message, r.Log, r.PTX = d.str(), d.bytes(), d.bytes()
	return r, d.err
}

func putU32(b *bufio.Writer, v uint32) { b.Write(binary.LittleEndian.AppendUint32(nil, v)) }

func putStr(b *bufio.Writer, s string) {
	putU32(b, uint32(len(s)))
	b.WriteString(s)
}

func putBytes(b *bufio.Writer, p []byte) {
	b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(p))))
	b.Write(p)
}

// maxBlock bounds a block's length: no module or PTX comes near it.
const maxBlock = 1 << 34

// readPart is the most a block's buffer grows by before its bytes are read.
const readPart = 1 << 20

// decoder reads the fields in turn; after the first error it reads
// nothing and returns zero values.
type decoder struct {
	r   *bufio.Reader
	err error
}

func (d *decoder) full(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > maxBlock {
		d.err = fmt.Errorf("nvvmproto: block of %d bytes", n)
		return nil
	}
	// Grown as the bytes arrive (in parts of at most readPart), so that a
	// forged length on a short stream fails at the stream's end instead of
	// allocating the whole length first.
	p := make([]byte, 0, min(n, readPart))
	for uint64(len(p)) < n {
		k := int(min(n-uint64(len(p)), readPart))
		p = slices.Grow(p, k)
		if _, err := io.ReadFull(d.r, p[len(p):len(p)+k]); err != nil {
			if err == io.EOF && len(p) > 0 {
				err = io.ErrUnexpectedEOF
			}
			d.err = fmt.Errorf("nvvmproto: %w", err)
			return nil
		}
		p = p[:len(p)+k]
	}
	return p
}

func (d *decoder) magic() {
	if p := d.full(uint64(len(magic))); d.err == nil && string(p) != magic {
		d.err = errors.New("nvvmproto: not a warplink-nvvm exchange")
	}
}

func (d *decoder) u32() uint32 {
	p := d.full(4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

func (d *decoder) str() string { return string(d.full(uint64(d.u32()))) }

func (d *decoder) bytes() []byte {
	p := d.full(8)
	if p == nil {
		return nil
	}
	return d.full(binary.LittleEndian.Uint64(p))
}
