// Package hostobj finds the device code in a host ELF object written by
// nvcc -dc: the relocatable fatbinary in section __nv_relfatbin and the
// module ID in __nv_module_id. It is pure: results alias the input.
//
// nvlink 11.8 reads __nv_relfatbin only when the object also has the
// .nvFatBinSegment control section; it never reads .nv_fatbin (the
// fatbinary of objects compiled without -rdc), so such objects carry no
// device code as far as the link is concerned.
package hostobj

import (
	"bytes"

	"github.com/warplink/warplink/elf"
)

// Section names nvcc uses.
const (
	RelFatbinSection = "__nv_relfatbin"
	SegmentSection   = ".nvFatBinSegment"
	ModuleIDSection  = "__nv_module_id"
	FatbinSection    = ".nv_fatbin"
)

// Object is the device side of a host object.
type Object struct {
	// Fatbin is the contents of __nv_relfatbin (one or more fatbinary
	// containers), nil when the object has no device code for nvlink.
	Fatbin []byte
	// ModuleID is the NUL-terminated string in __nv_module_id, if any.
	ModuleID string
	// NonRelocatable reports a .nv_fatbin section (whole-program device
	// code, which nvlink ignores).
	NonRelocatable bool
	// HostInfo: the object has nvcc's host reference sections (.nvHR*),
	// and HostKernels the name patterns of the kernels its host code
	// references (.nvHRKE, external, then .nvHRKI, internal: mangled names
	// with '*' wildcards, "_Z2tk*").
	HostInfo    bool
	HostKernels []string
}

// Host reference sections: kernels, device globals and constants the host
// code references, each external (E) and internal (I), as NUL-terminated
// name patterns.
const (
	HostKernelsExternal = ".nvHRKE"
	HostKernelsInternal = ".nvHRKI"
	hostRefPrefix       = ".nvHR"
)

// HasDeviceCode reports whether nvlink would take device code from the object.
func (o *Object) HasDeviceCode() bool { return o.Fatbin != nil }

// Parse decodes a 64-bit host ELF object and returns its device side.
func Parse(b []byte) (*Object, error) {
	f, err := elf.Parse(b)
	if err != nil {
		return nil, err
	}
	return FromFile(f), nil
}

// FromFile returns the device side of an already decoded host object.
func FromFile(f *elf.File) *Object {
	o := &Object{}
	var rel, kext, kint []byte
	hasSeg, hasRel := false, false
	for i := range f.Sections {
		s, name := &f.Sections[i], f.SecName(i)
		if s.Type == elf.SHTNobits {
			continue
		}
		if len(name) == len(hostRefPrefix)+2 && name[:len(hostRefPrefix)] == hostRefPrefix {
			o.HostInfo = true
		}
		switch name {
		case HostKernelsExternal:
			kext = s.Data()
		case HostKernelsInternal:
			kint = s.Data()
		case RelFatbinSection:
			rel, hasRel = s.Data(), true
		case SegmentSection:
			hasSeg = true
		case ModuleIDSection:
			id := s.Data()
			if i := bytes.IndexByte(id, 0); i >= 0 {
				id = id[:i]
			}
			o.ModuleID = string(id)
		case FatbinSection:
			o.NonRelocatable = true
		}
	}
	o.HostKernels = appendNames(appendNames(nil, kext), kint)
	if hasSeg && hasRel {
		o.Fatbin = rel
		if o.Fatbin == nil {
			o.Fatbin = []byte{}
		}
	}
	return o
}

// appendNames appends the NUL-terminated names of b (copies: they outlive
// the object's bytes), skipping empty ones.
func appendNames(names []string, b []byte) []string {
	for len(b) > 0 {
		n := bytes.IndexByte(b, 0)
		if n < 0 {
			n = len(b)
		}
		if n > 0 {
			names = append(names, string(b[:n]))
		}
		b = b[min(n+1, len(b)):]
	}
	return names
}
