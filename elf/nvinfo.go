package elf

// nv.info records: [format u8][attribute u8][u16 size-or-value][payload].
// Only format EIFMT_SVAL (4) carries a payload of `size` bytes; the other
// formats keep their value in the 16-bit field.

// EIATTR formats.
const (
	EIFmtNVal = 1
	EIFmtBVal = 2
	EIFmtHVal = 3
	EIFmtSVal = 4
)

// EIATTR codes the linker reads or writes.
const (
	EIAttrCtaidzUsed                 = 0x04
	EIAttrMaxThreads                 = 0x05
	EIAttrParamCbank                 = 0x0A
	EIAttrExterns                    = 0x0F
	EIAttrReqntid                    = 0x10
	EIAttrFrameSize                  = 0x11
	EIAttrMinStackSize               = 0x12
	EIAttrSamplerForceUnnormalized   = 0x13
	EIAttrBindlessImageOffsets       = 0x14
	EIAttrKparamInfo                 = 0x17
	EIAttrSmemParamOffsets           = 0x18
	EIAttrCbankParamSize             = 0x19
	EIAttrQueryNumattrib             = 0x1A
	EIAttrMaxregCount                = 0x1B
	EIAttrExitInstrOffsets           = 0x1C
	EIAttrS2rctaidInstrOffsets       = 0x1D
	EIAttrCrsStackSize               = 0x1E
	EIAttrNeedCnpWrapper             = 0x1F
	EIAttrNeedCnpPatch               = 0x20
	EIAttrExplicitCaching            = 0x21
	EIAttrIstypepUsed                = 0x22
	EIAttrMaxStackSize               = 0x23
	EIAttrSuqUsed                    = 0x24
	EIAttrLdCachemodInstrOffsets     = 0x25
	EIAttrLoadCacheRequest           = 0x26
	EIAttrAtomSysInstrOffsets        = 0x27
	EIAttrCoopGroupInstrOffsets      = 0x28
	EIAttrCoopGroupMaxRegids         = 0x29
	EIAttrSw1850030War               = 0x2A
	EIAttrWmmaUsed                   = 0x2B
	EIAttrHasPreV10Object            = 0x2C
	EIAttrAtomf16EmulInstrOffsets    = 0x2D
	EIAttrAtom16EmulInstrRegMap      = 0x2E
	EIAttrRegcount                   = 0x2F
	EIAttrSw2393858War               = 0x30
	EIAttrIntWarpWideInstrOffsets    = 0x31
	EIAttrSharedScratch              = 0x32
	EIAttrStatistics                 = 0x33
	EIAttrIndirectBranchTargets      = 0x34
	EIAttrSw2861232War               = 0x35
	EIAttrSwWar                      = 0x36
	EIAttrCudaApiVersion             = 0x37
	EIAttrNumMbarriers               = 0x38
	EIAttrMbarrierInstrOffsets       = 0x39
	EIAttrCoroutineResumeIdOffsets   = 0x3A
	EIAttrSamRegionStackSize         = 0x3B
	EIAttrPerRegTargetPerfStats      = 0x3C
	EIAttrCtaPerClusterUsed          = 0x3D
	EIAttrExplicitCluster            = 0x3E
	EIAttrMaxClusterRank             = 0x3F
	EIAttrInstrRegMap                = 0x40
	EIAttrReservedSmemUsed           = 0x41
	EIAttrReservedSmem0Size          = 0x42
	EIAttrUcodeSectionData           = 0x43
	EIAttrUnusedLoadByteOffset       = 0x44
	EIAttrKparamInfoV2               = 0x45
	EIAttrSysCallOffsets             = 0x46
	EIAttrSw2402404War               = 0x47
	EIAttrGraphicsGlobalCbank        = 0x48
	EIAttrShaderType                 = 0x49
	EIAttrVrcCtaInitCount            = 0x4A
	EIAttrToolsPatchFunc             = 0x4B
	EIAttrNumBarriers                = 0x4C
	EIAttrTexmodeIndependent         = 0x4D
	EIAttrPerformanceInstructionUsed = 0x4E
	EIAttrAtEntryFragments           = 0x4F
	EIAttrSparseMmaMask              = 0x50
	EIAttrTcgen05Inst1CtaUsed        = 0x51
	EIAttrTcgen05Inst2CtaUsed        = 0x52
	EIAttrGenErrbarAtExit            = 0x53
)

// Attr is one nv.info record. Payload aliases the input for EIFMT_SVAL;
// Value holds the 16-bit field otherwise.
type Attr struct {
	Format  uint8
	Code    uint8
	Value   uint16
	Payload []byte
}

// Size is the encoded size of the record in bytes.
func (a *Attr) Size() int {
	if a.Format == EIFmtSVal {
		return 4 + len(a.Payload)
	}
	return 4
}

// ParseNvInfo decodes the records of an .nv.info section.
func ParseNvInfo(b []byte) ([]Attr, error) { return ParseNvInfoInto(b, nil) }

// ParseNvInfoInto is ParseNvInfo with the records in memory from alloc
// (see ParseInto): their payloads point into b only.
func ParseNvInfoInto(b []byte, alloc Alloc) ([]Attr, error) {
	// Count first: one allocation of the right size.
	return AppendNvInfoRecords(SliceOf[Attr](NvInfoCount(b), alloc)[:0], b)
}

// NvInfoCount is how many records the .nv.info section b holds, when
// AppendNvInfoRecords accepts it.
func NvInfoCount(b []byte) int {
	n := 0
	for off := 0; off+4 <= len(b); n++ {
		off += 4
		if b[off-4] == EIFmtSVal {
			off += int(le.Uint16(b[off-2:]))
		}
	}
	return n
}

// AppendNvInfoRecords decodes the records of an .nv.info section b onto
// dst (whose room a caller decoding again and again reuses): their
// payloads point into b only.
func AppendNvInfoRecords(dst []Attr, b []byte) ([]Attr, error) {
	for off := 0; off < len(b); {
		a, next, err := NextNvInfo(b, off)
		if err != nil {
			return nil, err
		}
		dst = append(dst, a)
		off = next
	}
	return dst, nil
}

// NextNvInfo decodes the record at off (< len(b)) of an .nv.info section
// b and returns it with the offset of the record after it (len(b) after
// the last), for a caller that checks records without keeping them: a
// walk from 0 sees AppendNvInfoRecords' records and fails where it does.
func NextNvInfo(b []byte, off int) (a Attr, next int, err error) {
	if len(b)-off < 4 {
		return Attr{}, 0, errorf("truncated .nv.info record at offset 0x%x", off)
	}
	a = Attr{Format: b[off], Code: b[off+1], Value: le.Uint16(b[off+2:])}
	off += 4
	if a.Format == EIFmtSVal {
		n := int(a.Value)
		if n > len(b)-off {
			return Attr{}, 0, errorf(".nv.info record 0x%x at offset 0x%x has size %d past the section end", a.Code, off-4, n)
		}
		a.Payload = b[off : off+n : off+n]
		off += n
	} else if a.Format < EIFmtNVal || a.Format > EIFmtSVal {
		return Attr{}, 0, errorf(".nv.info record at offset 0x%x has unknown format %d", off-4, a.Format)
	}
	return a, off, nil
}

// AppendNvInfo encodes records onto dst.
func AppendNvInfo(dst []byte, attrs []Attr) []byte {
	for i := range attrs {
		a := &attrs[i]
		v := a.Value
		if a.Format == EIFmtSVal {
			v = uint16(len(a.Payload))
		}
		dst = append(dst, a.Format, a.Code, byte(v), byte(v>>8))
		if a.Format == EIFmtSVal {
			dst = append(dst, a.Payload...)
		}
	}
	return dst
}

// U32 reads the little-endian word at off of a payload (0 if short).
func (a *Attr) U32(off int) uint32 {
	if off+4 > len(a.Payload) {
		return 0
	}
	return le.Uint32(a.Payload[off:])
}
