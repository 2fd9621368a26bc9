package gen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/elf/hostobj"
)

// HostObject wraps a relocatable cubin the way nvcc -dc does in a host
// object, for the host-object and archive variants of a workload: a
// 64-bit x86-64 relocatable ELF holding the cubin in a fatbinary container
// (section __nv_relfatbin, one ELF member, stored uncompressed), the
// .nvFatBinSegment control section nvlink requires beside it, and the
// module ID (__nv_module_id) nvcc names the object's registration by.
// The host code, symbols and relocations of a real object are left out:
// nvlink reads none of them. The member header's fields are those nvcc
// 11.8 writes for an sm_90 cubin (testdata/corpus: ELF ABI 1.7, 64-bit,
// Linux), less compression.
func HostObject(cubin []byte, moduleID string, sm int) []byte {
	// The fatbinary: container header, member header, payload padded to 8.
	padded := (len(cubin) + 7) &^ 7
	fb := make([]byte, 16+64+padded)
	le := binary.LittleEndian
	le.PutUint32(fb[0:], fatbin.Magic)
	le.PutUint16(fb[4:], 1)  // container version
	le.PutUint16(fb[6:], 16) // container header size
	le.PutUint64(fb[8:], uint64(64+padded))
	m := fb[16:]
	le.PutUint16(m[0:], fatbin.KindELF)
	le.PutUint16(m[2:], 0x0101)
	le.PutUint32(m[4:], 64)
	le.PutUint64(m[8:], uint64(padded))
	le.PutUint16(m[24:], 7) // ELF ABI minor
	le.PutUint16(m[26:], 1) // ELF ABI major
	le.PutUint32(m[28:], uint32(sm))
	le.PutUint64(m[40:], fatbin.Flag64Bit|fatbin.FlagLinux)
	copy(m[64:], cubin)

	// The control section: nvcc's __fatBinC_Wrapper_t (magic, version,
	// then the fatbinary's address, filled by a relocation nvlink ignores).
	seg := make([]byte, 24)
	le.PutUint32(seg[0:], 0x466243b1)
	le.PutUint32(seg[4:], 1)

	// Laid out by layout, as the generator's cubins are: sections in index
	// order (a File without a section header table), the header table last.
	secs := []elf.Section{
		{},
		{Type: elf.SHTProgbits, Flags: elf.SHFAlloc, Addralign: 16},
		{Type: elf.SHTProgbits, Flags: elf.SHFAlloc, Addralign: 8},
		{Type: elf.SHTProgbits, Flags: elf.SHFAlloc | elf.SHFWrite, Addralign: 8},
		{Type: elf.SHTStrtab, Addralign: 1},
	}
	secNames := []string{"", hostobj.ModuleIDSection, hostobj.RelFatbinSection, hostobj.SegmentSection, ".shstrtab"}
	data := [][]byte{nil, append([]byte(moduleID), 0), fb, seg, nil}
	shstr := []byte{0}
	names := make([]uint32, len(secs))
	for i := 1; i < len(secs); i++ {
		names[i] = uint32(len(shstr))
		shstr = append(append(shstr, secNames[i]...), 0)
	}
	data[len(data)-1] = shstr
	f := &elf.File{Sections: secs, Header: elf.Header{Type: elf.ETRel, Machine: emX8664, Version: 1, Shstrndx: uint16(len(secs) - 1)}}
	copy(f.Header.Ident[:], "\x7fELF\x02\x01\x01")
	return layout(f, data, names)
}

// emX8664 is EM_X86_64.
const emX8664 = 62

// ArchiveMember is a file to store in an archive.
type ArchiveMember struct {
	Name string // at most 15 bytes (the header's own name field)
	Data []byte
}

// Archive writes members as a System V (GNU) ar archive without a symbol
// index: what `ar rc` writes for objects that define no host symbols, and
// what nvlink reads for the archive variant of a workload (it links every
// member of an archive of host objects that carries device code).
func Archive(members []ArchiveMember) []byte {
	var b bytes.Buffer
	aw := NewArchiveWriter(&b)
	for _, m := range members {
		aw.Add(m.Name, m.Data)
	}
	return b.Bytes()
}

// ArchiveWriter writes an archive member by member (see Archive), so that
// a large one need not be held in memory. Names longer than 15 bytes would
// need the extended name table, which the generator's names (o000000.o)
// never do.
type ArchiveWriter struct {
	w       io.Writer
	started bool
	err     error
}

// NewArchiveWriter starts an archive on w.
func NewArchiveWriter(w io.Writer) *ArchiveWriter { return &ArchiveWriter{w: w} }

// Add appends a member; the first error sticks (see Err).
func (a *ArchiveWriter) Add(name string, data []byte) {
	if len(name) > 15 {
		panic("gen: archive member name over 15 bytes: " + name)
	}
	if !a.started {
		a.write([]byte("!<arch>\n"))
		a.started = true
	}
	a.write(fmt.Appendf(nil, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name+"/", 0, 0, 0, 0o644, len(data)))
	a.write(data)
	if len(data)%2 == 1 {
		a.write([]byte{'\n'})
	}
}

func (a *ArchiveWriter) write(b []byte) {
	if a.err == nil {
		_, a.err = a.w.Write(b)
	}
}

// Err is the first write error, if any (an archive of no member is just
// its magic).
func (a *ArchiveWriter) Err() error {
	if !a.started {
		a.write([]byte("!<arch>\n"))
		a.started = true
	}
	return a.err
}

// HostObjectName is the file name of object i in the host-object variant
// of a workload (its cubin is ObjectName(i)).
func HostObjectName(i int) string { return fmt.Sprintf("o%06d.o", i) }

// ModuleID is the module ID of object i in the host-object variant (nvcc
// writes one per translation unit; nvlink names registration code by it).
func ModuleID(i int) string { return fmt.Sprintf("__warplink_bench_%06d", i) }
