// Package fatbin decodes fatbinary containers: the 0xBA55ED50 wrapper that
// nvcc embeds in host objects (section __nv_relfatbin) and writes as
// .fatbin files, and its members (cubins, PTX, ...). It is pure: members
// alias the input; Contents decompresses LZ4 and ZSTD payloads into new
// buffers. Every size and offset is checked; malformed input yields an
// *elf.Error, never a panic.
//
// Layout (little-endian), as written by CUDA 11.8 and read by cuobjdump:
//
//	container: u32 magic, u16 version (1), u16 header size (16), u64 size of
//	           the members that follow the header
//	member:    +0 u16 kind, +2 u16 version (0x0101), +4 u32 header size
//	           (64; 88 for PTX with options), +8 u64 payload size (padded
//	           to 8), +16 u32 compressed size (0 when stored), +20 u32
//	           options offset (PTX), +24 u16 minor, +26 u16 major (PTX ISA
//	           or ELF ABI version), +28 u32 SM, +40 u64 flags, +56 u64
//	           uncompressed size; the payload follows the member header.
package fatbin

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/warplink/warplink/elf"
)

// Magic is the fatbinary container magic.
const Magic = 0xBA55ED50

// Member kinds.
const (
	KindPTX  = 1
	KindELF  = 2
	KindNVVM = 8 // LTO IR; needs -lto
)

// Member flags.
const (
	Flag64Bit        = 0x1
	FlagDebug        = 0x2
	FlagLinux        = 0x10
	FlagCompressLZ4  = 0x2000 // CUDA 11.8's default for ELF and PTX members
	FlagCompressZstd = 0x8000 // newer toolkits
	flagCompressMask = 0xF000
	// FlagScrambled marks the compressed NVVM members of CUDA 12's
	// fatbinary (flags 0x12011 where 11.8 writes 0x2011): the compressed
	// block of the plain IR (its key word zeroed, its bitcode unscrambled),
	// transformed under the key at header 0x30 (the key the IR carries at
	// 0x28); Contents undoes it (scramble.go). -Xfatbin=-compress=false
	// stores the IR as it is (flags 0x11).
	FlagScrambled = 0x10000
)

const (
	containerHdrSize = 16
	memberHdrSize    = 64
	// maxExpand bounds uncompressed/compressed so that a forged size field
	// cannot make Contents allocate without bound.
	maxExpand = 1 << 10
)

var le = binary.LittleEndian

func errorf(format string, a ...any) error { return &elf.Error{Msg: fmt.Sprintf(format, a...)} }

// Member is one entry of a container.
type Member struct {
	Kind         uint16
	Version      uint16
	HeaderSize   uint32
	PaddedSize   uint64 // payload size in the container (multiple of 8)
	Compressed   uint32 // compressed payload size; 0 when stored as is
	Minor, Major uint16
	Arch         int // SM number: 90 for sm_90 / compute_90
	Flags        uint64
	Uncompressed uint64 // size after decompression (0 when stored)
	Offset       int    // offset of the member header in the parsed input
	// Payload is the stored payload (Compressed bytes when compressed,
	// PaddedSize bytes otherwise), aliasing the input.
	Payload []byte
	// Header is the member's header (HeaderSize bytes), aliasing the input.
	Header []byte
}

// Options returns the compile options the member's header carries, split
// on white space: ptxas's for a PTX member ("--compile-only"), libnvvm's
// for an NVVM one ("-ftz=0 -prec_div=1 ..."). At header offset 64 a
// header of more than 64 bytes holds the u32 offset (from the header's
// start) and the u32 length of the text; nil when there is none or it
// does not fit.
func (m *Member) Options() []string {
	h := m.Header
	if len(h) < memberHdrSize+8 {
		return nil
	}
	off, n := uint64(le.Uint32(h[memberHdrSize:])), uint64(le.Uint32(h[memberHdrSize+4:]))
	if off == 0 || n == 0 || off+n > uint64(len(h)) {
		return nil
	}
	return strings.Fields(strings.TrimRight(string(h[off:off+n]), "\x00"))
}

// Container is one fatbinary wrapper and its members.
type Container struct {
	Offset     int
	Version    uint16
	HeaderSize uint16
	Size       uint64
	Members    []Member
}

// IsFatbin reports whether b starts with the container magic.
func IsFatbin(b []byte) bool { return len(b) >= 4 && le.Uint32(b) == Magic }

// IsCompressed reports whether the payload needs decompression.
func (m *Member) IsCompressed() bool { return m.Flags&flagCompressMask != 0 }

// Parse decodes the container at the start of b and any containers
// concatenated after it (zero padding between and after them is skipped).
func Parse(b []byte) ([]Container, error) {
	var out []Container
	off := 0
	for {
		c, err := parseContainer(b, off)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		off += containerHdrSize + int(c.Size)
		for off < len(b) && b[off] == 0 {
			off++
		}
		if off >= len(b) {
			return out, nil
		}
	}
}

// ParseFirst decodes only the first container, as nvlink does for a .fatbin
// input file.
func ParseFirst(b []byte) (Container, error) { return parseContainer(b, 0) }

func parseContainer(b []byte, start int) (Container, error) {
	c := Container{Offset: start}
	rest := b[start:]
	if len(rest) < containerHdrSize || le.Uint32(rest) != Magic {
		return c, errorf("no fatbinary magic at 0x%x", start)
	}
	c.Version = le.Uint16(rest[4:])
	c.HeaderSize = le.Uint16(rest[6:])
	c.Size = le.Uint64(rest[8:])
	if c.HeaderSize != containerHdrSize {
		return c, errorf("fatbinary at 0x%x has header size %d, want %d", start, c.HeaderSize, containerHdrSize)
	}
	if c.Size > uint64(len(rest)-containerHdrSize) {
		return c, errorf("fatbinary at 0x%x (size 0x%x) goes past the end of its data (0x%x bytes)", start, c.Size, len(rest))
	}
	body := rest[containerHdrSize : containerHdrSize+int(c.Size)]
	for p := 0; p < len(body); {
		m, next, err := parseMember(body, p)
		if err != nil {
			return c, err
		}
		m.Offset += start + containerHdrSize
		c.Members = append(c.Members, m)
		p = next
	}
	return c, nil
}

func parseMember(body []byte, p int) (Member, int, error) {
	if len(body)-p < memberHdrSize {
		return Member{}, 0, errorf("truncated fatbinary member header at 0x%x", p)
	}
	h := body[p:]
	m := Member{
		Kind:         le.Uint16(h),
		Version:      le.Uint16(h[2:]),
		HeaderSize:   le.Uint32(h[4:]),
		PaddedSize:   le.Uint64(h[8:]),
		Compressed:   le.Uint32(h[16:]),
		Minor:        le.Uint16(h[24:]),
		Major:        le.Uint16(h[26:]),
		Arch:         int(le.Uint32(h[28:])),
		Flags:        le.Uint64(h[40:]),
		Uncompressed: le.Uint64(h[56:]),
		Offset:       p,
	}
	avail := uint64(len(body) - p)
	if m.HeaderSize < memberHdrSize || uint64(m.HeaderSize) > avail {
		return m, 0, errorf("fatbinary member at 0x%x has a bad header size %d", p, m.HeaderSize)
	}
	if m.PaddedSize > avail-uint64(m.HeaderSize) {
		return m, 0, errorf("fatbinary member at 0x%x (payload 0x%x bytes) goes past the end of its container", p, m.PaddedSize)
	}
	data := p + int(m.HeaderSize)
	n := int(m.PaddedSize)
	if m.IsCompressed() {
		if uint64(m.Compressed) > m.PaddedSize {
			return m, 0, errorf("fatbinary member at 0x%x: compressed size 0x%x exceeds its payload 0x%x", p, m.Compressed, m.PaddedSize)
		}
		n = int(m.Compressed)
	}
	m.Payload = body[data : data+n : data+n]
	m.Header = body[p:data:data]
	return m, data + int(m.PaddedSize), nil
}

// Contents returns the member's payload, decompressed when needed. Stored
// payloads are returned as is (aliasing the input, padding included).
func (m *Member) Contents() ([]byte, error) {
	if !m.IsCompressed() {
		return m.Payload, nil
	}
	if m.Uncompressed/maxExpand > uint64(len(m.Payload)) {
		return nil, errorf("fatbinary member at 0x%x: uncompressed size 0x%x is implausible for 0x%x compressed bytes", m.Offset, m.Uncompressed, len(m.Payload))
	}
	payload := m.Payload
	if m.Flags&FlagScrambled != 0 {
		payload = descramble(payload, le.Uint32(m.Header[scrambleKeyOff:]))
	}
	switch m.Flags & flagCompressMask {
	case FlagCompressLZ4:
		return DecodeLZ4Block(payload, int(m.Uncompressed))
	case FlagCompressZstd:
		out, err := decodeZstd(payload, m.Uncompressed)
		if err != nil {
			return nil, errorf("fatbinary member at 0x%x: %v", m.Offset, err)
		}
		return out, nil
	}
	return nil, errorf("fatbinary member at 0x%x uses an unknown compression (flags 0x%x)", m.Offset, m.Flags)
}

// The end of an LZ4 block, as liblz4's LZ4_decompress_safe (nvlink's
// decoder: "Uncompress failed") requires it: the last lz4LastLiterals
// bytes of the output are literals, and literals that end within
// lz4MFLimit bytes of the output's end, or with fewer than
// lz4SeqMin bytes of input after them (an offset, the next token, the
// last literals), end the block.
const (
	lz4LastLiterals = 5
	lz4MFLimit      = 12
	lz4SeqMin       = 2 + 1 + lz4LastLiterals
)

// DecodeLZ4Block decodes one LZ4 block (no frame) into exactly n bytes.
// It refuses what liblz4 refuses (see lz4LastLiterals), so that a member
// nvlink cannot decompress is not linked; it ends the block after the
// last literals whatever match length their token gives, as liblz4 does.
func DecodeLZ4Block(src []byte, n int) ([]byte, error) {
	bad := func(what string, at int) ([]byte, error) {
		return nil, errorf("bad LZ4 data: %s at 0x%x", what, at)
	}
	dst := make([]byte, 0, n)
	i := 0
	for i < len(src) {
		tok := src[i]
		i++
		lit := int(tok >> 4)
		if lit == 15 {
			for {
				if i >= len(src) {
					return bad("truncated literal length", i)
				}
				c := src[i]
				i++
				lit += int(c)
				if lit > n {
					return bad("literals overflow the output", i)
				}
				if c != 255 {
					break
				}
			}
		}
		if lit > len(src)-i || lit > n-len(dst) {
			return bad("literals overflow", i)
		}
		last := len(dst)+lit > n-lz4MFLimit || lit > len(src)-i-lz4SeqMin
		dst = append(dst, src[i:i+lit]...)
		i += lit
		if last {
			if i != len(src) {
				return bad("literals that end near the end of the output or the input but do not end the block", i)
			}
			break
		}
		if len(src)-i < 2 {
			return bad("truncated match offset", i)
		}
		moff := int(le.Uint16(src[i:]))
		i += 2
		if moff == 0 || moff > len(dst) {
			return bad("match offset out of range", i-2)
		}
		ml := int(tok&15) + 4
		if tok&15 == 15 {
			for {
				if i >= len(src) {
					return bad("truncated match length", i)
				}
				c := src[i]
				i++
				ml += int(c)
				if ml > n {
					return bad("match overflows the output", i)
				}
				if c != 255 {
					break
				}
			}
		}
		if ml > n-len(dst) {
			return bad("match overflows the output", i)
		}
		if ml > n-lz4LastLiterals-len(dst) {
			return bad("match in the last 5 bytes of the output", i)
		}
		// The match may overlap what it writes (moff < ml): each copy takes
		// what is written so far, at most moff bytes, which repeats the
		// last moff bytes as a copy byte by byte would.
		from, out := len(dst)-moff, len(dst)
		dst = dst[:out+ml]
		for k := 0; k < ml; {
			k += copy(dst[out+k:], dst[from+k:out+k])
		}
	}
	if len(dst) != n {
		return nil, errorf("bad LZ4 data: expands to 0x%x bytes, want 0x%x", len(dst), n)
	}
	return dst, nil
}

// Choice is the outcome of Select.
type Choice int

const (
	// NoCode: neither SASS for the target nor PTX that could be JIT-compiled
	// to it (nvlink warns "SM Arch ('sm_XX') not found in '<file>'").
	NoCode Choice = iota
	// SASS: an ELF member for exactly the target SM.
	SASS
	// PTXOnly: only PTX for compute_YY <= target; nvlink JIT-compiles it
	// with its embedded ptxas, which warplink does not have.
	PTXOnly
)

// Select picks the member nvlink links for target SM arch: the first ELF
// member whose SM equals arch; failing that, the ELF member of the highest
// SM whose code runs there (elf.SMCompatible: an sm_80 cubin for sm_86),
// even beside PTX for the target itself (nvlink 11.8); failing that, the
// PTX member with the highest SM not above arch. It returns the index into
// ms, or -1 for NoCode.
func Select(ms []Member, arch int) (int, Choice) {
	ptx, compat := -1, -1
	for i := range ms {
		m := &ms[i]
		switch m.Kind {
		case KindELF:
			if m.Arch == arch {
				return i, SASS
			}
			if elf.SMCompatible(m.Arch, arch) && (compat < 0 || m.Arch > ms[compat].Arch) {
				compat = i
			}
		case KindPTX:
			if m.Arch <= arch && (ptx < 0 || m.Arch > ms[ptx].Arch) {
				ptx = i
			}
		}
	}
	if compat >= 0 {
		return compat, SASS
	}
	if ptx >= 0 {
		return ptx, PTXOnly
	}
	return -1, NoCode
}

// SelectPTX picks the member nvlink takes for a virtual target
// compute_<arch>: the PTX member with the highest SM not above arch (to
// compile for sm_<arch>), never an ELF member, even one for arch itself
// (nvlink 11.8 and 12.5 then warn that the arch is not found). It returns
// the index into ms, or -1 for NoCode.
func SelectPTX(ms []Member, arch int) (int, Choice) {
	ptx := -1
	for i := range ms {
		if m := &ms[i]; m.Kind == KindPTX && m.Arch <= arch && (ptx < 0 || m.Arch > ms[ptx].Arch) {
			ptx = i
		}
	}
	if ptx < 0 {
		return -1, NoCode
	}
	return ptx, PTXOnly
}
