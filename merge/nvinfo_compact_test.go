package merge

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/warplink/warplink/elf"
)

// translateByRecords is appendTranslated the way of decoded records:
// each record decoded (elf.AppendNvInfoRecords), translated as an
// infoRec and encoded (appendCompact).
func translateByRecords(ctx *Context, o *Obj, b []byte) ([]byte, recKinds) {
	attrs, err := elf.AppendNvInfoRecords(nil, b)
	if err != nil {
		return nil, 0
	}
	var out []byte
	var kinds recKinds
	for _, a := range attrs {
		if a.Code == elf.EIAttrMaxStackSize {
			continue
		}
		r := infoRec{Format: a.Format, Code: a.Code, Value: a.Value, sym: -1, Payload: a.Payload}
		if a.Code == elf.EIAttrExterns {
			var ids []byte
			for k := 0; k+4 <= len(a.Payload); k += 4 {
				if m := ctx.liveSym(o, a.U32(k)); m >= 0 && externKept(ctx.Syms[m]) {
					ids = binary.LittleEndian.AppendUint32(ids, uint32(m))
				}
			}
			r.Payload = ids
		}
		if p, ok := o.placeholderSym(); ok && a.Code == elf.EIAttrKparamInfo && a.Format == elf.EIFmtSVal && len(a.Payload) >= 4 && a.U32(0) == 0 {
			r.sym = p
		}
		if symIndexAttr(a.Code) && a.Format == elf.EIFmtSVal && len(a.Payload) >= 4 {
			if r.sym = ctx.liveSym(o, a.U32(0)); r.sym < 0 || ctx.lostDefinition(o, a.U32(0)) {
				continue
			}
		}
		out = appendCompact(out, &r)
		kinds |= kindOf(r.Code)
	}
	return out, kinds
}

// TestAppendTranslated checks appendTranslated, which translates .nv.info
// records from their input bytes, against the same translation of
// decoded records, on random sections: symbol records of live, dead,
// unmapped and replaced symbols, EXTERNS lists, the placeholder's
// KPARAM_INFO, every format, and sections that do not decode.
func TestAppendTranslated(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	codes := []uint8{elf.EIAttrMaxStackSize, elf.EIAttrExterns, elf.EIAttrKparamInfo, elf.EIAttrFrameSize,
		elf.EIAttrRegcount, elf.EIAttrMinStackSize, elf.EIAttrCtaidzUsed, elf.EIAttrNumMbarriers, elf.EIAttrCudaApiVersion,
		elf.EIAttrParamCbank, elf.EIAttrSamRegionStackSize}
	for iter := range 2000 {
		// Input symbols 0-7; 8 and past have no entry (SymMap).
		ctx := &Context{Res: []Resolution{{File: 0, Index: 3}, {File: 1, Index: 0}}}
		for id := range 6 {
			s := &OutSym{ID: int32(id), Sec: int32(id % 3), dead: rng.Intn(4) == 0}
			if rng.Intn(2) == 0 {
				s.Other = stoCudaEntry
			}
			if id%3 == 2 {
				s.Sec, s.Shndx = -1, 0 // undefined: EXTERNS keeps it
			}
			ctx.Syms = append(ctx.Syms, s)
		}
		o := &Obj{F: &elf.File{}, SymMap: []int32{-1, 0, 1, 2, 3, -1, 4, 5}, resID: []int32{-1, -1, -1, 0, 1, -1, -1, 1}}
		for i := range 8 {
			o.F.Symbols = append(o.F.Symbols, elf.Symbol{Info: elf.STBGlobal << 4, Shndx: uint32(1 + i%2)})
		}
		if iter%2 == 0 {
			o.setPlaceholderSym(4)
		}
		var b []byte
		for range rng.Intn(8) {
			a := elf.Attr{Format: uint8(1 + rng.Intn(4)), Code: codes[rng.Intn(len(codes))], Value: uint16(rng.Intn(3))}
			if a.Format == elf.EIFmtSVal {
				for range rng.Intn(4) {
					a.Payload = binary.LittleEndian.AppendUint32(a.Payload, uint32(rng.Intn(10)))
				}
				if rng.Intn(8) == 0 {
					a.Payload = append(a.Payload, 1, 2) // (not whole words)
				}
			}
			b = elf.AppendNvInfo(b, []elf.Attr{a})
		}
		switch rng.Intn(10) {
		case 0:
			b = append(b, 4, 1) // truncated header
		case 1:
			b = append(b, 4, 1, 9, 0, 1) // payload past the end
		case 2:
			b = append(b, 7, 1, 0, 0) // unknown format
		}
		want, wantKinds := translateByRecords(ctx, o, b)
		prefix := []byte{0xEE}
		got, gotKinds := appendTranslated(ctx, o, append([]byte(nil), prefix...), b)
		if !bytes.Equal(got[:1], prefix) || !bytes.Equal(got[1:], want) || gotKinds != wantKinds {
			t.Fatalf("section % x:\ngot  % x (kinds %d)\nwant % x (kinds %d)", b, got[1:], gotKinds, want, wantKinds)
		}
	}
}
