package fatbin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// decodeZstd decodes the zstd frames of src into exactly n bytes.
//
// The decoder is the standard library's (internal/zstd), reached through
// debug/elf, which decompresses SHF_COMPRESSED sections of type
// ELFCOMPRESS_ZSTD: src is wrapped as the one section of a minimal ELF64
// image. A third-party zstd package would cost every link its package
// initialization (tables and CPU feature probes: about 0.27 ms of a
// 2 ms link) although few links have a compressed member.
func decodeZstd(src []byte, n uint64) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(zstdImage(src, n)))
	if err != nil || len(f.Sections) != 2 {
		return nil, fmt.Errorf("bad ZSTD data: %v", err)
	}
	r := f.Sections[1].Open()
	out := make([]byte, n)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("bad ZSTD data: %v", err)
	}
	// The section reader stops at n bytes; data past them would be a
	// longer stream than the member says.
	if k, err := r.Read(make([]byte, 1)); k > 0 || !errors.Is(err, io.EOF) {
		return nil, errors.New("ZSTD data expands to more bytes than the member's uncompressed size")
	}
	return out, nil
}

// zstdImage is an ELF64 little-endian image with two section headers: the
// null one and a compressed one (ELFCOMPRESS_ZSTD, n bytes uncompressed)
// holding src, and no section name table.
func zstdImage(src []byte, n uint64) []byte {
	const ehdr, chdr, shdr = 64, 24, 64
	shoff := uint64(ehdr + chdr + len(src))
	shoff = (shoff + 7) &^ 7
	b := make([]byte, shoff+2*shdr)
	le := binary.LittleEndian
	copy(b, "\x7fELF\x02\x01\x01")
	le.PutUint16(b[16:], uint16(elf.ET_REL))
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(b[40:], shoff)
	le.PutUint16(b[52:], ehdr)
	le.PutUint16(b[58:], shdr)
	le.PutUint16(b[60:], 2) // e_shnum; e_shstrndx 0: no names
	le.PutUint32(b[ehdr:], uint32(elf.COMPRESS_ZSTD))
	le.PutUint64(b[ehdr+8:], n)
	le.PutUint64(b[ehdr+16:], 1)
	copy(b[ehdr+chdr:], src)
	sh := b[shoff+shdr:]
	le.PutUint32(sh[4:], uint32(elf.SHT_PROGBITS))
	le.PutUint64(sh[8:], uint64(elf.SHF_COMPRESSED))
	le.PutUint64(sh[24:], ehdr)
	le.PutUint64(sh[32:], uint64(chdr+len(src)))
	le.PutUint64(sh[48:], 1)
	return b
}
