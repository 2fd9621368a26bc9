package merge

// The compact form of .nv.info records: the bytes elf encodes, but with
// output symbol IDs where symbol indices will go (those are final only in
// the order pass). A record whose payload's first word names a symbol
// (infoRec.sym >= 0) has compactSym set in its format byte, and that word
// holds the ID; an EXTERNS payload lists IDs. A record takes exactly its
// encoded size, so a function's records take a third of what infoRecs do
// (at 100,000 objects about a million records, each 32 bytes in fresh
// heap memory during finalize, where the heap is at its peak), and a
// generated .nv.info.<f> is written once, patched as write copies it into
// its run buffer (patchCompact, compactInfo).
// Invariant: input formats are 1 to 4 (elf.AppendNvInfoRecords checks
// them), so the high bit of the format byte is free.

import (
	"encoding/binary"

	"github.com/warplink/warplink/elf"
)

// compactSym marks, in a compact record's format byte, a payload whose
// first word is an output symbol ID.
const compactSym = 0x80

// appendCompact appends record r in compact form to dst (a dropped
// record appends nothing).
func appendCompact(dst []byte, r *infoRec) []byte {
	if r.isDropped() {
		return dst
	}
	f, v := r.Format, r.Value
	if f == elf.EIFmtSVal {
		v = uint16(len(r.Payload))
	}
	named := r.sym >= 0 && r.Format == elf.EIFmtSVal && len(r.Payload) >= 4
	if named {
		f |= compactSym
	}
	dst = append(dst, f, r.Code, byte(v), byte(v>>8))
	if r.Format != elf.EIFmtSVal {
		return dst
	}
	start := len(dst)
	dst = append(dst, r.Payload...)
	if named {
		binary.LittleEndian.PutUint32(dst[start:], uint32(r.sym))
	}
	return dst
}

// compactSize is what appendCompact appends for r.
func compactSize(r *infoRec) int {
	if r.isDropped() {
		return 0
	}
	if r.Format == elf.EIFmtSVal {
		return 4 + len(r.Payload)
	}
	return 4
}

// decodeCompact appends the records of compact bytes b to dst; their
// payloads are slices of b.
func decodeCompact(dst []infoRec, b []byte) []infoRec {
	for off := 0; off+4 <= len(b); {
		// (Filled in its slot, field by field: a record made then
		// appended was read whole right after its narrow fields were
		// stored, a stall at every record.)
		dst = append(dst, infoRec{})
		r := &dst[len(dst)-1]
		f := b[off]
		r.Format, r.Code, r.Value, r.sym = f&^compactSym, b[off+1], binary.LittleEndian.Uint16(b[off+2:]), -1
		off += 4
		if r.Format == elf.EIFmtSVal {
			n := int(r.Value)
			r.Payload = b[off : off+n : off+n]
			off += n
			if f&compactSym != 0 && n >= 4 {
				r.sym = int32(binary.LittleEndian.Uint32(r.Payload))
			}
		}
	}
	return dst
}

// patchCompact makes compact bytes b the section's contents, in place:
// symbol IDs become final symbol indices, the marks go.
func patchCompact(ctx *Context, b []byte) {
	for off := 0; off+4 <= len(b); {
		f, code := b[off], b[off+1]
		b[off] = f &^ compactSym
		n := 0
		if f&^compactSym == elf.EIFmtSVal {
			n = int(binary.LittleEndian.Uint16(b[off+2:]))
		}
		p := b[off+4 : off+4+n]
		off += 4 + n
		switch {
		case f&compactSym != 0:
			id := binary.LittleEndian.Uint32(p)
			binary.LittleEndian.PutUint32(p, uint32(ctx.symIndexOf(int32(id))))
		case code == elf.EIAttrExterns && n > 0:
			for k := 0; k+4 <= n; k += 4 {
				id := binary.LittleEndian.Uint32(p[k:])
				binary.LittleEndian.PutUint32(p[k:], uint32(ctx.symIndexOf(int32(id))))
			}
		}
	}
}

// compactNext is the offset of the record after the one at off of b.
func compactNext(b []byte, off int) int {
	if b[off]&^compactSym == elf.EIFmtSVal {
		return off + 4 + int(binary.LittleEndian.Uint16(b[off+2:]))
	}
	return off + 4
}

// compactOffsets appends to offs the offset of each compact record of b
// (read from the last: nvlink prepends each record it reads).
func compactOffsets(offs []int, b []byte) []int {
	for off := 0; off+4 <= len(b); off = compactNext(b, off) {
		offs = append(offs, off)
	}
	return offs
}

// compactSymAt is the output symbol the record at off of b names, if any.
func compactSymAt(b []byte, off int) (int32, bool) {
	if b[off]&compactSym == 0 {
		return -1, false
	}
	return int32(binary.LittleEndian.Uint32(b[off+4:])), true
}

// compactU32 is the payload word at p of the record at off of b (0 when
// the payload is shorter), and where it is in b (-1 then).
func compactU32(b []byte, off, p int) (uint32, int) {
	if b[off]&^compactSym != elf.EIFmtSVal || p+4 > int(binary.LittleEndian.Uint16(b[off+2:])) {
		return 0, -1
	}
	at := off + 4 + p
	return binary.LittleEndian.Uint32(b[at:]), at
}

// minStackSize is the compact (and encoded) size of a MIN_STACK_SIZE
// record: its header, the symbol and the size.
const minStackSize = 12

// appendTranslated appends the records of o's input .nv.info section b
// to dst in compact form, translated (objectInfo), and reports which
// records of interest it kept. It reads the input bytes straight: a
// compact record is its input bytes but for the symbol word and an
// EXTERNS list, so most records are copied as they are, with no decoded
// record between (each object's decoding buffer, 2 KiB zeroed, and a
// record written then read back cost more than the copy). A section
// that does not decode (elf.AppendNvInfoRecords' errors) keeps no record.
func appendTranslated(ctx *Context, o *Obj, dst, b []byte) ([]byte, recKinds) {
	start := len(dst)
	var kinds recKinds
	ph, hasPH := o.placeholderSym()
	for off := 0; off < len(b); {
		// (elf.NextNvInfo's checks, inline: keep them the same.)
		if len(b)-off < 4 {
			return dst[:start], 0
		}
		f, code := b[off], b[off+1]
		end := off + 4
		if f == elf.EIFmtSVal {
			n := int(binary.LittleEndian.Uint16(b[off+2:]))
			if n > len(b)-end {
				return dst[:start], 0
			}
			end += n
		} else if f < elf.EIFmtNVal || f > elf.EIFmtSVal {
			return dst[:start], 0
		}
		rec := b[off:end:end]
		off = end
		sym := int32(-1)
		switch {
		case code == elf.EIAttrMaxStackSize:
			continue // (recomputed)
		case code == elf.EIAttrExterns && f == elf.EIFmtSVal:
			// What stays is decided later, over the call graph.
			at := len(dst)
			dst = append(dst, f, code, 0, 0)
			for k := 4; k+4 <= len(rec); k += 4 {
				if m := ctx.liveSym(o, binary.LittleEndian.Uint32(rec[k:])); m >= 0 && externKept(ctx.Syms[m]) {
					dst = binary.LittleEndian.AppendUint32(dst, uint32(m))
				}
			}
			binary.LittleEndian.PutUint16(dst[at+2:], uint16(len(dst)-at-4))
			kinds |= kindExterns
			continue
		case f != elf.EIFmtSVal || len(rec) < 8:
			// (no symbol word: copied as it is)
		case symIndexAttr(code):
			i := binary.LittleEndian.Uint32(rec[4:])
			if sym = ctx.liveSym(o, i); sym < 0 || ctx.lostDefinition(o, i) {
				continue // record of a dropped weak copy
			}
		case hasPH && code == elf.EIAttrKparamInfo && binary.LittleEndian.Uint32(rec[4:]) == 0:
			sym = ph // see mergeGlobal
		}
		at := len(dst)
		dst = append(dst, rec...)
		if sym >= 0 {
			dst[at] |= compactSym
			binary.LittleEndian.PutUint32(dst[at+4:], uint32(sym))
		}
		kinds |= kindOf(code)
	}
	return dst, kinds
}
