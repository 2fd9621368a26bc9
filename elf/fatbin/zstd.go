package fatbin

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/warplink/warplink/internal/zstd"
)

// decodeZstd decodes the zstd frames of src into exactly n bytes.
//
// The decoder is a copy of the standard library's internal/zstd
// (internal/zstd of this module): the standard library reaches its own
// only through debug/elf's compressed sections, and a third-party zstd
// package would cost every link its package initialization (tables and
// CPU feature probes) although few links have a compressed member.
func decodeZstd(src []byte, n uint64) ([]byte, error) {
	if len(src) == 0 && n == 0 {
		// No frame and nothing to expand: an empty member, as
		// klauspost/compress decodes it (the standard library's decoder
		// wants at least one frame).
		return []byte{}, nil
	}
	r := zstd.NewReader(bytes.NewReader(src))
	out := make([]byte, n)
	if _, err := io.ReadFull(r, out); err != nil {
		return nil, fmt.Errorf("bad ZSTD data: %v", err)
	}
	// Data past n bytes would be a longer stream than the member says.
	switch k, err := r.Read(make([]byte, 1)); {
	case k > 0:
		return nil, errors.New("ZSTD data expands to more bytes than the member's uncompressed size")
	case !errors.Is(err, io.EOF):
		return nil, fmt.Errorf("bad ZSTD data: %v", err)
	}
	return out, nil
}
