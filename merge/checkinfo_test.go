package merge

import (
	"slices"
	"strings"
	"testing"

	"github.com/warplink/warplink/elf"
)

// TestCheckInfo pins checkInfo's order of errors: a decoding error
// anywhere in the section comes before a short EIATTR_REGCOUNT record,
// and of two short records the first is named.
func TestCheckInfo(t *testing.T) {
	t.Parallel()
	rec := func(format, code byte, payload ...byte) []byte {
		n := len(payload)
		return append([]byte{format, code, byte(n), byte(n >> 8)}, payload...)
	}
	regcount := rec(elf.EIFmtSVal, elf.EIAttrRegcount, 1, 0, 0, 0, 32, 0, 0, 0)
	short := rec(elf.EIFmtSVal, elf.EIAttrRegcount, 1, 0, 0, 0)
	for _, c := range []struct {
		name string
		b    []byte
		want string // a substring of the error; "" for none
	}{
		{"good", slices.Concat(regcount, rec(elf.EIFmtHVal, 0x36)), ""},
		{"empty", nil, ""},
		{"short", slices.Concat(regcount, short), "(EIATTR_REGCOUNT) at offset 0xc has size 4"},
		{"short then truncated", slices.Concat(short, []byte{elf.EIFmtSVal, 0x2f}), "truncated .nv.info record at offset 0x8"},
		{"two short", slices.Concat(short, short), "at offset 0x0 has size 4"},
		{"regcount not SVal", slices.Concat(rec(elf.EIFmtHVal, elf.EIAttrRegcount)), "has size 0"},
		{"unknown format after short", slices.Concat(short, rec(9, 1)), "unknown format 9"},
	} {
		err := checkInfo(c.b)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v, want no error", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want one containing %q", c.name, err, c.want)
		}
	}
}
