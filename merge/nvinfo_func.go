package merge

// A function's .nv.info.<f> section, made by buildNvInfo's parallel loop:
// its records (the inputs' with those nvlink adds or changes) and its
// contents in compact form.

import (
	"encoding/binary"
	"slices"
	"strings"
	"unsafe"

	"github.com/warplink/warplink/elf"
)

// infoBlock is the number of functions whose .nv.info.<f> sections
// buildNvInfo's parallel loop prepares together: their records first,
// then their contents and names in one allocation (one lock of the arena
// for 64 sections, where one each had the two threads wait on each other).
const infoBlock = 64

// funcInfoJob is what buildNvInfo's parallel loop reads.
type funcInfoJob struct {
	ctx        *Context
	perFunc    *funcInfos
	order      []int32
	live       []int32
	unknown    map[int32]bool
	ctaidz     map[int32]bool
	mbarriers  map[int32]uint16
	newExterns map[int32]infoRec
}

// block prepares the sections of live[lo:hi] (made.at(k), nameHash[k]):
// their records gathered in *recs (reused), then their contents (each
// 8-byte aligned) and names carved from one allocation (secChunks.alloc).
func (j *funcInfoJob) block(made secChunks, nameHash []uint32, lo, hi int, recs *[]infoRec) {
	ctx := j.ctx
	var ends, sizes [infoBlock]int32
	var plain [infoBlock]plainInfo
	all := (*recs)[:0]
	total, names := 0, 0 // contents (each 8-byte aligned), names
	for k := lo; k < hi; k++ {
		infoAhead(ctx, j.live, k)
		size := 0
		if p := j.plain(j.live[k]); p.ok {
			plain[k-lo] = p
			size = p.size()
		} else {
			start := len(all)
			all = j.records(j.live[k], all)
			for i := start; i < len(all); i++ {
				size += compactSize(&all[i])
			}
		}
		ends[k-lo], sizes[k-lo] = int32(len(all)), int32(size)
		total += (size + 7) &^ 7
		names += len(infoPrefix) + len(j.name(k))
	}
	*recs = all
	m, nm := made.alloc(ctx, total, names)
	start := 0
	for k := lo; k < hi; k++ {
		size, b := int(sizes[k-lo]), j.name(k)
		name := nm[:len(infoPrefix)+len(b)]
		nm = nm[len(name):]
		copy(name[copy(name, infoPrefix):], b)
		s := made.at(k)
		genSection(s, unsafe.String(unsafe.SliceData(name), len(name)), elf.SHTCudaInfo, 0, 4, 0)
		s.LinkSymtab = true
		s.InfoSec = j.live[k]
		nameHash[k] = ctx.ShStr.hash(s.Name)
		var out []byte
		if size > 0 {
			out = m[:0:size]
		}
		if p := &plain[k-lo]; p.ok {
			out = p.appendTo(out, ctx.Header.Version)
		}
		for i := start; i < int(ends[k-lo]); i++ {
			out = appendCompact(out, &all[i])
		}
		start = int(ends[k-lo])
		s.setBody(out)
		s.Size = uint64(len(out))
		m = m[(size+7)&^7:]
	}
}

// plainInfo is a function whose .nv.info.<f> holds its inputs' records
// as they are, but in reverse order (nvlink prepends), after a
// CUDA_API_VERSION record when they have none (api): nothing that
// records adds or changes. Its contents are copied from the compact
// records (enc), which go out as decodeCompact and appendCompact would
// make them, without decoding them.
type plainInfo struct {
	ok, api bool
	enc     []byte
}

// plain is code section t's plainInfo (ok: its records are plain).
func (j *funcInfoJob) plain(t int32) plainInfo {
	p := j.perFunc
	var enc []byte
	if k := p.at[t]; k > 0 {
		if p.kinds[k-1]&kindExterns != 0 {
			return plainInfo{}
		}
		enc = p.enc[k-1]
	}
	// (What records adds or changes for t; rare.)
	if _, ok := j.newExterns[t]; ok {
		return plainInfo{}
	}
	if _, ok := j.mbarriers[t]; ok {
		return plainInfo{}
	}
	if len(j.unknown) > 0 || len(j.ctaidz) > 0 {
		if sym := j.ctx.Secs[t].InfoSym; j.unknown[sym] || j.ctaidz[sym] {
			return plainInfo{}
		}
	}
	api := true
	for off := 0; off+4 <= len(enc); off = compactNext(enc, off) {
		if enc[off+1] == elf.EIAttrCudaApiVersion {
			api = false
			break
		}
	}
	return plainInfo{ok: true, api: api, enc: enc}
}

// size is the size of p's contents.
func (p *plainInfo) size() int {
	if p.api {
		return len(p.enc) + 8
	}
	return len(p.enc)
}

// appendTo appends p's contents to dst: the CUDA API version record
// (version) when p needs one, then its records from the last.
func (p *plainInfo) appendTo(dst []byte, version uint32) []byte {
	if p.api {
		dst = append(dst, elf.EIFmtSVal, elf.EIAttrCudaApiVersion, 4, 0)
		dst = binary.LittleEndian.AppendUint32(dst, version)
	}
	var at [32]int
	offs := compactOffsets(at[:0], p.enc)
	end := len(p.enc)
	for k := len(offs) - 1; k >= 0; k-- {
		dst = append(dst, p.enc[offs[k]:end]...)
		end = offs[k]
	}
	return dst
}

// infoPrefix starts the name of a function's .nv.info.<f>.
const infoPrefix = ".nv.info"

// name is the part of live[k]'s .nv.info.<f> name after infoPrefix.
func (j *funcInfoJob) name(k int) string {
	return strings.TrimPrefix(j.ctx.Secs[j.live[k]].Name, ".text")
}

// records appends code section t's .nv.info.<f> records, in order, to
// dst: its inputs' records reversed (nvlink prepends), with those nvlink
// adds or changes.
func (j *funcInfoJob) records(t int32, dst []infoRec) []infoRec {
	ctx := j.ctx
	first := len(dst)
	dst = j.perFunc.records(t, dst)
	recs := dst[first:]
	if !hasAttr(recs, elf.EIAttrCudaApiVersion) {
		dst = append(dst, infoRec{Format: elf.EIFmtSVal, Code: elf.EIAttrCudaApiVersion,
			Payload: le32(ctx.Header.Version), sym: -1})
	}
	slices.Reverse(dst[first:])
	if j.unknown[ctx.Secs[t].InfoSym] {
		// The entry's call stack size is unknown too: nvlink sets
		// EIATTR_CRS_STACK_SIZE to -1, appending the record when the
		// input had none.
		if k := findAttr(dst[first:], elf.EIAttrCrsStackSize); k >= 0 {
			dst[first+k].Payload = le32(0xFFFFFFFF)
		} else {
			dst = append(dst, infoRec{Format: elf.EIFmtSVal, Code: elf.EIAttrCrsStackSize,
				Payload: le32(0xFFFFFFFF), sym: -1})
		}
	}
	// (Before CTAIDZ_USED: crafted mbarrier-propagation.)
	if n, ok := j.mbarriers[t]; ok {
		if k := findAttr(dst[first:], elf.EIAttrNumMbarriers); k >= 0 {
			dst[first+k].Value = n
		} else {
			dst = append(dst, infoRec{Format: elf.EIFmtHVal, Code: elf.EIAttrNumMbarriers, Value: n, sym: -1})
		}
	}
	ext, extNew := j.newExterns[t]
	ctaidz := j.ctaidz[ctx.Secs[t].InfoSym]
	if extNew && ctaidz && externsBeforeCtaidz(ctx, t, j.order, j.perFunc) {
		dst = append(dst, ext)
		extNew = false
	}
	if ctaidz {
		dst = append(dst, infoRec{Format: elf.EIFmtNVal, Code: elf.EIAttrCtaidzUsed, sym: -1})
	}
	if extNew {
		dst = append(dst, ext) // (after that one: testdata/crafted/externs-moved)
	}
	return dst
}
