package merge

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/warplink/warplink/elf"
)

// The rules nvlink 13.0 adds to what its inputs' notes and compatibility
// table say (Release.ToolNote, Release.CompatDrop), found from the 25
// links of testdata/corpus/cuda13.0-sm_90.

const (
	tkinfoName = ".note.nv.tkinfo"
	cuinfoName = ".note.nv.cuinfo"
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
	id, ok := ctx.secNamed(tkinfoName)
	if !ok || ctx.Secs[id].Dead {
		return
	}
	s := ctx.Secs[id]
	note := appendToolNote(nil, "nvlink", ctx.Rel.ToolNote[0], ctx.Rel.ToolNote[1], ctx.Opts.ToolOptions)
	data := make([]byte, len(note)+int(s.Size))
	copy(data, note)
	ctx.fillSection(s, data[len(note):], 0)
	ctx.setData(s, data)
	s.Size = uint64(len(data))
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
	id, ok := ctx.secNamed(compatName)
	if !ok || ctx.Secs[id].Dead || len(ctx.Secs[id].Pieces()) == 0 {
		return
	}
	s := ctx.Secs[id]
	p := s.Pieces()[0]
	recs, err := elf.ParseNvInfo(ctx.Objs[p.Obj].F.Sections[p.Sec].Data())
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
	ctx.setData(s, elf.AppendNvInfo([]byte{}, kept))
	s.Size = uint64(len(s.Data()))
}

// replacedFunc: symbol i of o is a function o defines whose code
// another file's definition replaced (a weak copy that lost).
func (o *Obj) replacedFunc(i uint32) bool {
	if int(i) >= len(o.F.Symbols) {
		return false
	}
	s := &o.F.Symbols[i]
	return s.Type() == elf.STTFunc && s.Shndx != elf.SHNUndef && int(s.Shndx) < len(o.Drop) && o.Drop[s.Shndx]
}

// inputOrder holds, under Release.InputOrder, where each output section
// and local symbol comes from: (object << 32 | input section or symbol
// index), by section and symbol ID; noKey for what no input brings
// (generated sections and symbols), which go after, in creation order.
type inputOrder struct {
	sec, sym []uint64
	secSyms  map[int32][]int32 // by object: secSymPlaces
	where    map[string]uint64 // namePlaces, for both string tables
	// deviceInfo: the .nv.info.<f> names of device functions (entryInfoName).
	deviceInfo map[string]bool
}

const noKey = ^uint64(0)

func orderKey(obj int32, idx int) uint64 { return uint64(obj)<<32 | uint64(uint32(idx)) }

// set stores key at id of keys, growing it with noKey.
func setKey(keys *[]uint64, id int32, key uint64) {
	for int(id) >= len(*keys) {
		*keys = append(*keys, noKey)
	}
	(*keys)[id] = key
}

// keySection records that output section id was made from input section
// i of o (makeOutSection).
func (ctx *Context) keySection(id int32, o *Obj, i int) {
	if ctx.inOrder != nil {
		setKey(&ctx.inOrder.sec, id, orderKey(int32(o.ID), i))
	}
}

// keySymbol records that local symbol id is symbol i of o.
func (ctx *Context) keySymbol(id int32, o *Obj, i int) {
	if ctx.inOrder != nil {
		setKey(&ctx.inOrder.sym, id, orderKey(int32(o.ID), i))
	}
}

// laterKey marks an input index as coming after the object's own
// (Release.LaterLocalsLast, and a device function's .nv.info.<f>): a bit
// of the key's uint32 index, never of an int (32-bit builds).
const laterKey = 1 << 31

// keyLocal records that local symbol id is symbol i of o, defined in
// output section sec: after o's other symbols when an earlier object
// made sec (Release.LaterLocalsLast), else after its section's symbol
// when that goes later (secSymPlaces: corpus cdp, libcudadevrt's
// $str and the like after .nv.global.init, which goes where its first
// global data symbol is).
func (ctx *Context) keyLocal(id int32, o *Obj, i int, sec int32) {
	if ctx.inOrder == nil {
		return
	}
	place, later := i, uint64(0)
	if ctx.Rel.LaterLocalsLast && int(sec) < len(ctx.inOrder.sec) && ctx.inOrder.sec[sec] != noKey &&
		int32(ctx.inOrder.sec[sec]>>32) < int32(o.ID) {
		later = laterKey
	} else if m := ctx.secSymPlaces(int32(o.ID)); int(o.F.Symbols[i].Shndx) < len(m) {
		// (Ties keep creation order: the section's symbol, then its
		// data's, in the input's order.)
		place = max(place, int(m[o.F.Symbols[i].Shndx]))
	}
	setKey(&ctx.inOrder.sym, id, orderKey(int32(o.ID), place)|later)
}

// keySectionSymbol places section sec's symbol (id) where the section
// symbol of the input section it was made from is.
func (ctx *Context) keySectionSymbol(id, sec int32) {
	if ctx.inOrder == nil || int(sec) >= len(ctx.inOrder.sec) || ctx.inOrder.sec[sec] == noKey {
		return
	}
	k := ctx.inOrder.sec[sec]
	obj, in := int32(k>>32), int(uint32(k))
	m := ctx.secSymPlaces(obj)
	if in < len(m) && m[in] > 0 {
		setKey(&ctx.inOrder.sym, id, orderKey(obj, int(m[in])))
	}
}

// keyInfoSections places the generated .nv.info sections where the
// inputs' are: .nv.info at the first object's, an entry's at the
// .nv.info.<f> of the object its code came from, a device function's
// after that object's entries' (nvlink 13.0: corpus cuda13.0-sm_90,
// .nv.compat between .nv.info and the functions' sections, as in its
// inputs).
func keyInfoSections(ctx *Context) {
	if ctx.inOrder == nil {
		return
	}
	var infos []int32 // (the .nv.info.<f> sections)
	for _, s := range ctx.Secs {
		if s.Type != elf.SHTCudaInfo || s.Dead {
			continue
		}
		// A generated .nv.info.<f> names its function's code (InfoSec)
		// and came from no input (infoIn 0); the global .nv.info names
		// none. A section of .nv.info's type that an input brought (a
		// forged one, through a symbol defined in it) keeps its input's
		// sh_info and is keyed as the global one is.
		generatedFuncInfo := s.InfoSec >= 0 && s.infoIn == 0
		var obj int32 = -1
		if !generatedFuncInfo && s.Name == ".nv.info" && len(ctx.Objs) > 0 {
			obj = 0
		} else if generatedFuncInfo && int(s.InfoSec) < len(ctx.inOrder.sec) && ctx.inOrder.sec[s.InfoSec] != noKey {
			obj = int32(ctx.inOrder.sec[s.InfoSec] >> 32)
		}
		if obj < 0 {
			continue
		}
		if i, ok := ctx.Objs[obj].sectionNamed(s.Name); ok {
			k := orderKey(obj, i)
			if !ctx.entryInfoName(s.Name) {
				k |= laterKey // (a device function's after the entries': corpus weakregs)
			}
			setKey(&ctx.inOrder.sec, s.ID, k)
			if generatedFuncInfo {
				infos = append(infos, s.ID)
			}
		}
	}
	infoInCodeOrder(ctx, infos)
}

// allocKey is where allocated section id goes: where its symbol is
// (secSymPlaces; the input's section order, but for
// Release.LocalCodeWithFunction's code).
func (ctx *Context) allocKey(id int32) uint64 {
	if int(id) >= len(ctx.inOrder.sec) || ctx.inOrder.sec[id] == noKey {
		return noKey
	}
	k := ctx.inOrder.sec[id]
	obj, in := int32(k>>32), int(uint32(k))
	if m := ctx.secSymPlaces(obj); in < len(m) && m[in] > 0 {
		return orderKey(obj, int(m[in]))
	}
	return k
}

// infoInCodeOrder gives, under Release.LocalCodeWithFunction, each
// object's .nv.info.<f> sections the places they hold (entries' and
// device functions' apart) in the order of their functions' code
// (allocKey): corpus cdp, libcudadevrt's, whose ptxas 13.0 lists them
// in section order, the opposite of its static kernels' symbols.
func infoInCodeOrder(ctx *Context, infos []int32) {
	if !ctx.Rel.LocalCodeWithFunction {
		return
	}
	group := func(id int32) uint64 { return ctx.inOrder.sec[id] &^ (laterKey - 1) } // (object and laterKey)
	slices.SortStableFunc(infos, func(a, b int32) int { return cmp.Compare(group(a), group(b)) })
	for lo := 0; lo < len(infos); {
		hi := lo + 1
		for hi < len(infos) && group(infos[hi]) == group(infos[lo]) {
			hi++
		}
		run := infos[lo:hi]
		keys := make([]uint64, len(run))
		for j, id := range run {
			keys[j] = ctx.inOrder.sec[id]
		}
		slices.Sort(keys)
		slices.SortStableFunc(run, func(a, b int32) int {
			return cmp.Compare(ctx.allocKey(ctx.Secs[a].InfoSec), ctx.allocKey(ctx.Secs[b].InfoSec))
		})
		for j, id := range run {
			ctx.inOrder.sec[id] = keys[j]
		}
		lo = hi
	}
}

// reorderByInput sorts, under Release.InputOrder, the non-allocated
// sections by where they come from, the PROGBITS ones (debug
// information) and the others apart, and the allocated ones of each type
// too (ctx.Order holds them by bucket and type, orderSections), then the
// local symbols.
func reorderByInput(ctx *Context) {
	if ctx.inOrder == nil {
		return
	}
	key := func(keys []uint64, id int32) uint64 {
		if int(id) < len(keys) {
			return keys[id]
		}
		return noKey
	}
	secKeys := make([]uint64, len(ctx.Secs)) // (by section ID, computed once)
	for _, id := range ctx.Order {
		if bucket(ctx.Secs[id]) < 2 {
			secKeys[id] = key(ctx.inOrder.sec, id)
		} else {
			secKeys[id] = ctx.allocKey(id)
		}
	}
	run := func(s *OutSec) uint64 {
		switch b := bucket(s); {
		case b == 0 && s.Type == elf.SHTProgbits:
			return 0 // (the debug sections first: corpus debug, -G)
		case b == 0:
			return 1
		case b == 1:
			return 2
		default:
			return uint64(b)<<32 | uint64(s.Type)
		}
	}
	for lo := 0; lo < len(ctx.Order); {
		hi := lo + 1
		for hi < len(ctx.Order) && run(ctx.Secs[ctx.Order[hi]]) == run(ctx.Secs[ctx.Order[lo]]) {
			hi++
		}
		if bucket(ctx.Secs[ctx.Order[lo]]) != 1 {
			slices.SortFunc(ctx.Order[lo:hi], func(a, b int32) int {
				if c := cmp.Compare(secKeys[a], secKeys[b]); c != 0 {
					return c
				}
				return cmp.Compare(a, b) // (creation order, as the run holds them)
			})
		}
		lo = hi
	}
	for i, id := range ctx.Order {
		ctx.secIndex[id] = int32(ctx.fixed + i)
	}
	slices.SortFunc(ctx.Locals, func(a, b int32) int {
		if c := cmp.Compare(key(ctx.inOrder.sym, a), key(ctx.inOrder.sym, b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b) // (creation order: IDs grow with it)
	})
}

// eachName is eachString over a string table's history of additions, in
// the order the release adds them: under Release.InputOrder the names of
// the inputs' sections (those an input's .shstrtab has) are added object
// by object, the first object naming one taking it, in the order of its
// sections' symbols (secSymPlaces), a name without one (.nv.info,
// .nv.info.<f>) after the name its .shstrtab has before it, each
// .rel.nv.constant0.<k> just before its bank;
// they take the places such names have in the history, whose other
// strings (relocation sections' names, the generated sections', symbol
// names) keep theirs (nvlink 13.0: corpus cuda13.0-sm_90, whose
// .note.nv.tkinfo, .note.nv.cuinfo, .nv.info and .nv.compat names come
// first, as ptxas 13.0 lays out its objects' .shstrtab).
func (ctx *Context) eachName(b []byte, fn func(off uint32, s string)) {
	if ctx.inOrder == nil {
		eachString(b, fn)
		return
	}
	type name struct {
		off uint32
		s   string
		key uint64
	}
	names := make([]name, 0, len(b)/16+16) // (names average more than 16 bytes)
	eachString(b, func(off uint32, s string) { names = append(names, name{off, s, noKey}) })
	if ctx.inOrder.where == nil {
		ctx.inOrder.where = ctx.namePlaces(len(names))
	}
	where := ctx.inOrder.where
	var keyed []int
	for i := range names {
		s := names[i].s
		if strings.HasPrefix(s, ".rel") && !strings.HasPrefix(s, ".rel.nv.constant0.") || generatedName(s) {
			continue
		}
		if k, ok := where[s]; ok {
			names[i].key = k
			if !ctx.entryInfoName(s) {
				// A device function's .nv.info.<f>: after the names of
				// the object that names it (corpus shared:
				// reduce_tile's, after its object's constant bank).
				names[i].key = k | laterKey
			}
		} else if bank, ok := strings.CutPrefix(s, ".rel"); ok {
			if k, ok := where[bank]; ok {
				names[i].key = k - 1
			}
		}
		if names[i].key != noKey {
			keyed = append(keyed, i)
		}
	}
	sorted := make([]name, len(keyed))
	for j, i := range keyed {
		sorted[j] = names[i]
	}
	// (Keys tie only within an object's history order, which the name's
	// offset keeps: a stable order without the stable sort's cost.)
	slices.SortFunc(sorted, func(x, y name) int {
		if c := cmp.Compare(x.key, y.key); c != 0 {
			return c
		}
		return cmp.Compare(x.off, y.off)
	})
	for j, i := range keyed {
		names[i] = sorted[j]
	}
	for _, n := range names {
		fn(n.off, n.s)
	}
}

// generatedName: the names of the sections nvlink makes itself, which
// keep their place in the history (eachName).
func generatedName(s string) bool {
	switch s {
	case ".shstrtab", ".strtab", ".symtab", ".symtab_shndx", ".nv.callgraph", ".nv.prototype", ".nv.rel.action":
		return true
	}
	return false
}

// entryInfoName: s is not an .nv.info.<f> name, or f is not a device
// function (an output section .text.<f> whose function is no entry).
func (ctx *Context) entryInfoName(s string) bool {
	if !strings.HasPrefix(s, ".nv.info.") {
		return true
	}
	if ctx.inOrder.deviceInfo == nil {
		ctx.inOrder.deviceInfo = map[string]bool{}
		for _, t := range ctx.Secs {
			if t.InfoSym >= 0 && t.LinkSymtab && ctx.Syms[t.InfoSym].Other&stoCudaEntry == 0 {
				if f, ok := strings.CutPrefix(t.Name, ".text."); ok {
					ctx.inOrder.deviceInfo[".nv.info."+f] = true
				}
			}
		}
	}
	return !ctx.inOrder.deviceInfo[s]
}

// secSymPlaces are, by section index of object obj, the places of its
// sections' symbols in its symbol order (0: none): the section symbol's
// index, but for a section that holds global data the index of the
// first global data symbol defined there (nvlink 13.0 makes such a
// section with its data: corpus funcptr, .nv.global.init after the
// functions' code, though ptxas lists its symbol first).
func (ctx *Context) secSymPlaces(obj int32) []int32 {
	if m, ok := ctx.inOrder.secSyms[obj]; ok {
		return m
	}
	f := ctx.Objs[obj].F
	m := make([]int32, len(f.Sections))
	data := make([]int32, len(f.Sections))
	for j := range f.Symbols {
		s := &f.Symbols[j]
		if int(s.Shndx) >= len(m) || s.Shndx == 0 {
			continue
		}
		switch {
		case s.Type() == elf.STTSection && m[s.Shndx] == 0:
			m[s.Shndx] = int32(j)
		case s.Bind() != elf.STBLocal && isDataSym(s) && data[s.Shndx] == 0:
			data[s.Shndx] = int32(j)
		}
	}
	for i := range m {
		if m[i] > 0 && data[i] > m[i] {
			m[i] = data[i]
		}
	}
	if ctx.Rel.LocalCodeWithFunction {
		localCodePlaces(f, m)
	}
	ctx.inOrder.secSyms[obj] = m
	return m
}

// localCodePlaces moves, in m (secSymPlaces), a local function's code
// section to its function's symbol when that comes first, and a
// .nv.shared.<f> whose sh_info names a code section to that section's
// place (Release.LocalCodeWithFunction; the ties keep creation order:
// the function's symbol, its code's, its shared memory's).
func localCodePlaces(f *elf.File, m []int32) {
	for j := range f.Symbols {
		s := &f.Symbols[j]
		if s.Type() == elf.STTFunc && s.Bind() == elf.STBLocal && s.Shndx > 0 && int(s.Shndx) < len(m) &&
			(m[s.Shndx] == 0 || int32(j) < m[s.Shndx]) {
			m[s.Shndx] = int32(j)
		}
	}
	for i := range f.Sections {
		in := &f.Sections[i]
		if t := int(in.Info); strings.HasPrefix(f.SecName(i), ".nv.shared.") && t > 0 && t < len(m) &&
			f.Sections[t].Flags&elf.SHFExecInstr != 0 && m[t] > 0 && m[t] < m[i] {
			m[i] = m[t]
		}
	}
}

// namePlaces are the keys eachName orders the inputs' section names by
// (and the local symbols' names), each for the first object that names
// it; n sizes the map (the names in the history).
func (ctx *Context) namePlaces(n int) map[string]uint64 {
	where := make(map[string]uint64, n)
	var bySec []int32 // an object's section indices by name offset
	for k, o := range ctx.Objs {
		if int(o.F.Header.Shstrndx) >= len(o.F.Sections) {
			continue
		}
		places := ctx.secSymPlaces(int32(k))
		bySec = bySec[:0]
		for i := range o.F.Sections {
			bySec = append(bySec, int32(i))
		}
		slices.SortStableFunc(bySec, func(a, b int32) int {
			return cmp.Compare(o.F.Sections[a].NameOff, o.F.Sections[b].NameOff)
		})
		prev, j := 0, 0
		eachString(o.F.Sections[o.F.Header.Shstrndx].Data(), func(off uint32, s string) {
			place := prev + 1 // (after the name before it, as .nv.info.<f> after .text.<f>)
			if f, ok := strings.CutPrefix(s, ".nv.info."); ok {
				// After its function's code's name, wherever that goes
				// (corpus cdp: libcudadevrt's .nv.info.<f> of
				// cnprtCnpv2TranslateError follows .nv.global.init's
				// name, which goes with its global data).
				if t, ok := o.sectionNamed(".text." + f); ok && places[t] > 0 {
					place = int(places[t])*4 + 1
				}
			}
			for j < len(bySec) && o.F.Sections[bySec[j]].NameOff < off {
				j++
			}
			if j < len(bySec) && o.F.Sections[bySec[j]].NameOff == off && places[bySec[j]] > 0 {
				place = int(places[bySec[j]]) * 4
				if in := &o.F.Sections[bySec[j]]; strings.HasPrefix(o.F.SecName(int(bySec[j])), ".nv.shared.") && int(in.Info) < len(places) && places[in.Info] == places[bySec[j]] {
					place += 2 // (with its code, after its .nv.info.<f>: localCodePlaces)
				}
			}
			prev = place
			if _, ok := where[s]; !ok {
				where[s] = orderKey(int32(k), place)
			}
		})
	}
	// (Local symbols' names where their symbols are: corpus printf's
	// $str after .nv.global.init.)
	for _, id := range ctx.Locals {
		if sym := ctx.Syms[id]; !sym.IsSecSym && int(id) < len(ctx.inOrder.sym) && ctx.inOrder.sym[id] != noKey {
			if _, ok := where[sym.Name]; !ok {
				k := ctx.inOrder.sym[id]
				in := uint32(k)
				where[sym.Name] = orderKey(int32(k>>32), int(in&laterKey|(in&^laterKey)*4))
			}
		}
	}
	return where
}
