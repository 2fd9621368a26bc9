package merge

import (
	"encoding/binary"

	"github.com/warplink/warplink/elf"
)

// The rules nvlink 13.0 adds to what its inputs' notes and compatibility
// table say (Release.ToolNote, Release.CompatDrop), found from the 25
// links of testdata/corpus/cuda13.0-sm_90.

const (
	tkinfoName = ".note.nv.tkinfo"
	compatName = ".nv.compat"
	// noteVendor and noteToolType are the name and type of the notes of
	// .note.nv.tkinfo, ptxas's and nvlink's.
	noteVendor   = "NVIDIA Corp\x00"
	noteToolType = 2000
)

// toolNote puts nvlink's own note before the inputs' notes of
// .note.nv.tkinfo (which stay as merge concatenated them): the release's
// name and build lines, as the inputs' ptxas notes write ptxas's, and the
// options (Options.ToolOptions). Only where the inputs have notes: every
// output of the corpus has one, and no input without one was linked.
func toolNote(ctx *Context) {
	if ctx.Rel.ToolNote[0] == "" {
		return
	}
	id, ok := ctx.secByName[tkinfoName]
	if !ok || ctx.Secs[id].Dead {
		return
	}
	s := ctx.Secs[id]
	note := appendToolNote(nil, "nvlink", ctx.Rel.ToolNote[0], ctx.Rel.ToolNote[1], ctx.Opts.ToolOptions)
	data := make([]byte, len(note)+int(s.Size))
	copy(data, note)
	ctx.fillSection(s, data[len(note):], 0)
	s.Data, s.Size, s.Pieces = data, uint64(len(data)), nil
}

// appendToolNote appends one tool's note: namesz, descsz, type 2000, the
// vendor name, then the description: version 2, a zero word, the offsets
// of the tool's name, version line, build line and options in the
// strings that follow (which start with an empty one), padded to 4
// bytes (descsz counts the padding). (The layout of ptxas 13.0's notes
// in every object of the corpus; nvlink 13.0's first note has it too.)
func appendToolNote(b []byte, tool, version, build, options string) []byte {
	le := binary.LittleEndian
	strs := []byte{0}
	var offs [4]uint32
	for k, v := range []string{tool, version, build, options} {
		offs[k] = uint32(len(strs))
		strs = append(append(strs, v...), 0)
	}
	desc := uint32(alignUp(24+uint64(len(strs)), 4))
	b = le.AppendUint32(b, uint32(len(noteVendor)))
	b = le.AppendUint32(b, desc)
	b = le.AppendUint32(b, noteToolType)
	b = append(b, noteVendor...)
	b = le.AppendUint32(b, 2)
	b = le.AppendUint32(b, 0)
	for _, o := range offs {
		b = le.AppendUint32(b, o)
	}
	b = append(b, strs...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// compatOnce writes .nv.compat once: the first input's records without
// the attributes Release.CompatDrop names. Every input of the corpus has
// the same table, so whether nvlink 13.0 takes the first input's or
// merges them is not known; what it drops (attribute 0x0b, eight bytes
// of zeros in every input) is seen in all 25 outputs.
func compatOnce(ctx *Context) {
	if len(ctx.Rel.CompatDrop) == 0 {
		return
	}
	id, ok := ctx.secByName[compatName]
	if !ok || ctx.Secs[id].Dead || len(ctx.Secs[id].Pieces) == 0 {
		return
	}
	s := ctx.Secs[id]
	p := s.Pieces[0]
	recs, err := elf.ParseNvInfo(ctx.Objs[p.Obj].F.Sections[p.Sec].Data)
	if err != nil {
		return // (kept as merged: nvlink's handling of a malformed table is unknown)
	}
	kept := recs[:0]
	for _, r := range recs {
		drop := false
		for _, c := range ctx.Rel.CompatDrop {
			drop = drop || r.Code == c
		}
		if !drop {
			kept = append(kept, r)
		}
	}
	s.Data = elf.AppendNvInfo([]byte{}, kept)
	s.Size, s.Pieces = uint64(len(s.Data)), nil
}
