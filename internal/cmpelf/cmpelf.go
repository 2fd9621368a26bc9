// Package cmpelf compares two cubins structurally, ours against a reference
// (normally nvlink's output for the same link), and reports section by
// section and symbol by symbol how ours differs.
//
// Every difference is either a layout difference or a content difference.
// Two files are Identical when their bytes are equal. They are Equivalent
// when they differ in layout only, that is when all of these hold:
//
//   - the ELF headers agree in every field except e_phoff and e_shoff, and
//     e_shstrndx names the same section;
//   - they have the same sections by name (duplicates matched in order),
//     with equal type, flags, addr, size, alignment and entsize; sh_link and
//     sh_info are equal after section indices are mapped to section names
//     (and, for code sections, the symbol index in sh_info to a symbol name);
//   - sections without indices inside have equal bytes; string tables hold
//     the same strings; the symbol tables hold the same symbols by name, with
//     equal value, size, info and other, defined in sections of the same name;
//     relocation sections hold the same (offset, type, symbol name, addend)
//     lists; .nv.info sections hold the same records in the same order with
//     symbol indices replaced by names; .nv.callgraph and .nv.prototype hold
//     the same records with symbols and prototype strings by name;
//   - they have the same program headers, in order, with equal type, flags,
//     addresses and alignment, each covering the same sections.
//
// The layout differences equivalence allows are: the order of sections and
// of symbols, file offsets of sections and tables, string-table order,
// program-header offsets and sizes that follow from those, and bytes outside
// any section (padding).
package cmpelf

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/warplink/warplink/elf"
)

// Report is the outcome of Compare. Diffs lists the differences, each
// prefixed "layout: " or "content: "; it is empty when Identical.
type Report struct {
	Identical  bool
	Equivalent bool
	Diffs      []string
}

// maxPerTopic bounds how many differences of one kind are listed before the
// rest are summarized in a count.
const maxPerTopic = 20

// Compare parses both cubins and compares them. It fails only when a file
// cannot be parsed.
func Compare(ours, ref []byte) (*Report, error) {
	o, err := elf.Parse(ours)
	if err != nil {
		return nil, fmt.Errorf("ours: %w", err)
	}
	r, err := elf.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("ref: %w", err)
	}
	if bytes.Equal(ours, ref) {
		return &Report{Identical: true, Equivalent: true}, nil
	}
	c := &comparer{
		o: newSide(o), r: newSide(r),
		shown: map[string]int{}, hidden: map[string]int{},
	}
	c.header()
	c.sections()
	c.symbols()
	c.progs()
	if len(c.diffs) == 0 && len(c.hidden) == 0 {
		c.add("bytes", false, "files differ only outside sections and headers (padding)")
	}
	for _, topic := range slices.Sorted(maps.Keys(c.hidden)) {
		c.diffs = append(c.diffs, fmt.Sprintf("%s: ... and %d more %s differences", kind(c.hiddenContent[topic]), c.hidden[topic], topic))
	}
	return &Report{Equivalent: !c.content, Diffs: c.diffs}, nil
}

func kind(content bool) string {
	if content {
		return "content"
	}
	return "layout"
}

// side is one parsed file with its sections and symbols keyed by name.
type side struct {
	f       *elf.File
	secKeys []string       // per section index
	secIdx  map[string]int // key -> section index
	symKeys []string       // per symbol index
	symIdx  map[string]int
}

// uniqueKeys names duplicates name#2, name#3, ... in order of appearance.
func uniqueKeys(names []string) ([]string, map[string]int) {
	keys := make([]string, len(names))
	idx := make(map[string]int, len(names))
	seen := map[string]int{}
	for i, n := range names {
		seen[n]++
		k := n
		if seen[n] > 1 {
			k = fmt.Sprintf("%s#%d", n, seen[n])
		}
		keys[i] = k
		idx[k] = i
	}
	return keys, idx
}

func newSide(f *elf.File) *side {
	s := &side{f: f}
	names := make([]string, len(f.Sections))
	for i := range f.Sections {
		names[i] = f.SecName(i)
	}
	s.secKeys, s.secIdx = uniqueKeys(names)
	// Symbols are keyed by name; section symbols without one by their
	// section, and names used more than once (locals of several files) are
	// qualified by the section they are defined in.
	names = make([]string, len(f.Symbols))
	count := map[string]int{}
	for i := range f.Symbols {
		sym := &f.Symbols[i]
		names[i] = sym.Name
		if sym.Name == "" && sym.Type() == elf.STTSection && i > 0 {
			names[i] = "section:" + s.symSection(sym)
		}
		count[names[i]]++
	}
	for i := range names {
		if count[names[i]] > 1 && i > 0 {
			names[i] += "@" + s.symSection(&f.Symbols[i])
		}
	}
	s.symKeys, s.symIdx = uniqueKeys(names)
	return s
}

// secName maps a section index to its key, or a number in brackets when it
// is out of range.
func (s *side) secName(i uint32) string {
	if int(i) < len(s.secKeys) {
		return s.secKeys[i]
	}
	return fmt.Sprintf("[%d]", i)
}

// symName maps a symbol index to its key.
func (s *side) symName(i uint32) string {
	if int(i) < len(s.symKeys) {
		return s.symKeys[i]
	}
	return fmt.Sprintf("[%d]", i)
}

// symSection names the section a symbol is defined in.
func (s *side) symSection(sym *elf.Symbol) string {
	if sym.RawShndx != elf.SHNXindex && (sym.RawShndx == elf.SHNUndef || sym.RawShndx >= elf.SHNLoReserve) {
		return s.f.ShndxName(sym)
	}
	return s.secName(sym.Shndx)
}

type comparer struct {
	o, r          *side
	diffs         []string
	content       bool
	shown         map[string]int
	hidden        map[string]int
	hiddenContent map[string]bool
}

// add records a difference under a topic; past maxPerTopic per topic only a
// count is kept.
func (c *comparer) add(topic string, content bool, format string, a ...any) {
	if content {
		c.content = true
	}
	if c.shown[topic] >= maxPerTopic {
		c.hidden[topic]++
		if c.hiddenContent == nil {
			c.hiddenContent = map[string]bool{}
		}
		c.hiddenContent[topic] = c.hiddenContent[topic] || content
		return
	}
	c.shown[topic]++
	c.diffs = append(c.diffs, kind(content)+": "+fmt.Sprintf(format, a...))
}

func (c *comparer) header() {
	o, r := &c.o.f.Header, &c.r.f.Header
	field := func(name string, ov, rv any, content bool) {
		if ov != rv {
			c.add("header", content, "header %s: ours %#x, ref %#x", name, ov, rv)
		}
	}
	if o.Ident != r.Ident {
		c.add("header", true, "header ident: ours % x, ref % x", o.Ident[:], r.Ident[:])
	}
	field("e_type", o.Type, r.Type, true)
	field("e_machine", o.Machine, r.Machine, true)
	field("e_version", o.Version, r.Version, true)
	field("e_entry", o.Entry, r.Entry, true)
	field("e_flags", o.Flags, r.Flags, true)
	field("e_ehsize", o.Ehsize, r.Ehsize, true)
	field("e_phentsize", o.Phentsize, r.Phentsize, true)
	field("e_shentsize", o.Shentsize, r.Shentsize, true)
	field("e_phoff", o.Phoff, r.Phoff, false)
	field("e_shoff", o.Shoff, r.Shoff, false)
	on, rn := c.o.secName(uint32(o.Shstrndx)), c.r.secName(uint32(r.Shstrndx))
	switch {
	case on != rn:
		c.add("header", true, "header e_shstrndx: ours %d (%s), ref %d (%s)", o.Shstrndx, on, r.Shstrndx, rn)
	case o.Shstrndx != r.Shstrndx:
		c.add("header", false, "header e_shstrndx: ours %d, ref %d (both %s)", o.Shstrndx, r.Shstrndx, on)
	}
	if len(c.o.f.Raw) != len(c.r.f.Raw) {
		c.add("header", false, "file size: ours %#x, ref %#x", len(c.o.f.Raw), len(c.r.f.Raw))
	}
}

// commonOrder reports the first place where two key sequences, restricted
// to the keys both have, disagree.
func commonOrder(ours, ref []string, inOurs, inRef map[string]int) (int, string, string, bool) {
	var a, b []string
	for _, k := range ours {
		if _, ok := inRef[k]; ok {
			a = append(a, k)
		}
	}
	for _, k := range ref {
		if _, ok := inOurs[k]; ok {
			b = append(b, k)
		}
	}
	for i := range a {
		if a[i] != b[i] {
			return i, a[i], b[i], true
		}
	}
	return 0, "", "", false
}

func (c *comparer) sections() {
	o, r := c.o, c.r
	for i, k := range r.secKeys {
		if _, ok := o.secIdx[k]; !ok {
			c.add("section", true, "section %s (ref [%d], %s, size %#x) missing from ours", k, i,
				elf.SectionTypeName(r.f.Sections[i].Type), r.f.Sections[i].Size)
		}
	}
	for i, k := range o.secKeys {
		if _, ok := r.secIdx[k]; !ok {
			c.add("section", true, "section %s (ours [%d], %s, size %#x) not in ref", k, i,
				elf.SectionTypeName(o.f.Sections[i].Type), o.f.Sections[i].Size)
		}
	}
	if n, ok, rk, diff := commonOrder(o.secKeys, r.secKeys, o.secIdx, r.secIdx); diff {
		c.add("section order", false, "section order differs from position %d: ours %s [%d], ref %s [%d]",
			n, ok, o.secIdx[ok], rk, r.secIdx[rk])
	}
	var moved int
	var firstMoved string
	for i, k := range o.secKeys {
		j, ok := r.secIdx[k]
		if !ok {
			continue
		}
		os, rs := &o.f.Sections[i], &r.f.Sections[j]
		oh, _ := o.f.Shdr(i)
		rh, _ := r.f.Shdr(j)
		c.sectionHeader(k, os, rs, &oh, &rh)
		if oh.Offset != rh.Offset && !elf.IsNobits(os.Type) && os.Size > 0 {
			if moved == 0 {
				firstMoved = fmt.Sprintf("%s ours %#x, ref %#x", k, oh.Offset, rh.Offset)
			}
			moved++
		}
		if os.Type == rs.Type && os.Size == rs.Size {
			c.sectionData(k, i, j)
		}
	}
	if moved > 0 {
		c.add("offset", false, "%d sections at different file offsets (first: %s)", moved, firstMoved)
	}
}

func (c *comparer) sectionHeader(k string, os, rs *elf.Section, oh, rh *elf.Shdr) {
	num := func(field string, ov, rv uint64) {
		if ov != rv {
			// A string table's size follows from the strings it holds.
			content := !(field == "size" && os.Type == elf.SHTStrtab)
			c.add("section header", content, "section %s: %s ours %#x, ref %#x", k, field, ov, rv)
		}
	}
	if os.Type != rs.Type {
		c.add("section header", true, "section %s: type ours %s, ref %s", k, elf.SectionTypeName(os.Type), elf.SectionTypeName(rs.Type))
	}
	num("flags", oh.Flags, rh.Flags)
	num("addr", oh.Addr, rh.Addr)
	num("size", os.Size, rs.Size)
	num("align", uint64(os.Addralign), uint64(rs.Addralign))
	num("entsize", uint64(os.Entsize), uint64(rs.Entsize))
	ol, rl := c.o.link(oh.Link), c.r.link(rh.Link)
	if ol != rl {
		c.add("section header", true, "section %s: link ours %s, ref %s", k, ol, rl)
	} else if oh.Link != rh.Link {
		c.add("section index", false, "section %s: link ours %d, ref %d (both %s)", k, oh.Link, rh.Link, ol)
	}
	oi, ri := c.o.info(os), c.r.info(rs)
	if oi != ri {
		c.add("section header", true, "section %s: info ours %s, ref %s", k, oi, ri)
	} else if os.Info != rs.Info {
		c.add("section index", false, "section %s: info ours %d, ref %d (both %s)", k, os.Info, rs.Info, oi)
	}
}

// link renders sh_link by the section it names.
func (s *side) link(link uint32) string {
	if link == 0 {
		return "0"
	}
	return "section " + s.secName(link)
}

// info renders sh_info by what it refers to: the count of local symbols for
// a symbol table, the function symbol for a code section, otherwise a
// section when it is a valid index.
func (s *side) info(sec *elf.Section) string {
	switch {
	case sec.Info == 0 || sec.Type == elf.SHTSymtab:
		return fmt.Sprint(sec.Info)
	case sec.Flags&elf.SHFExecInstr != 0:
		return "symbol " + s.symName(sec.Info)
	case int(sec.Info) < len(s.secKeys):
		return "section " + s.secKeys[sec.Info]
	}
	return fmt.Sprint(sec.Info)
}

// sectionData compares the contents of two sections of equal type and size.
func (c *comparer) sectionData(k string, oi, ri int) {
	os, rs := &c.o.f.Sections[oi], &c.r.f.Sections[ri]
	var ol, rl []string
	var oerr, rerr error
	switch {
	case os.Type == elf.SHTSymtab && isSymtab(c.o.f, os) && isSymtab(c.r.f, rs),
		os.Type == elf.SHTSymtabShndx:
		return // compared symbol by symbol
	case os.Type == elf.SHTStrtab:
		ol, rl = strtabStrings(os.Data()), strtabStrings(rs.Data())
		slices.Sort(ol)
		slices.Sort(rl)
		if !slices.Equal(ol, rl) {
			// Names in use are compared through the symbols and sections
			// that use them; a table may also hold unused strings.
			c.add("section data", false, "section %s: string tables hold different strings (%s)", k, firstStringDiff(ol, rl))
		}
		return
	case os.Type == elf.SHTRel || os.Type == elf.SHTRela:
		ol, oerr = c.o.relocs(oi)
		rl, rerr = c.r.relocs(ri)
	case os.Type == elf.SHTCudaInfo:
		ol, oerr = c.o.nvinfo(os)
		rl, rerr = c.r.nvinfo(rs)
	case os.Type == elf.SHTCudaCallgraph:
		ol, oerr = c.o.callgraph(os, true)
		rl, rerr = c.r.callgraph(rs, true)
	case os.Type == elf.SHTCudaPrototype:
		ol, oerr = c.o.callgraph(os, false)
		rl, rerr = c.r.callgraph(rs, false)
	default:
		c.rawData(k, os.Data(), rs.Data())
		return
	}
	if oerr != nil || rerr != nil {
		c.rawData(k, os.Data(), rs.Data())
		return
	}
	for i := range min(len(ol), len(rl)) {
		if ol[i] != rl[i] {
			c.add("section data", true, "section %s: entry %d: ours %s, ref %s", k, i, ol[i], rl[i])
			return
		}
	}
	if len(ol) != len(rl) {
		c.add("section data", true, "section %s: ours has %d entries, ref %d", k, len(ol), len(rl))
	}
}

func (c *comparer) rawData(k string, ob, rb []byte) {
	n, first := 0, -1
	for i := range ob {
		if ob[i] != rb[i] {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n > 0 {
		c.add("section data", true, "section %s: %d of %d bytes differ, first at %#x (ours %#02x, ref %#02x)",
			k, n, len(ob), first, ob[first], rb[first])
	}
}

func strtabStrings(b []byte) []string {
	parts := strings.Split(string(b), "\x00")
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// firstStringDiff names a string one sorted list has and the other lacks.
func firstStringDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return fmt.Sprintf("ref lacks %q", a[i])
			}
			return fmt.Sprintf("ours lacks %q", b[i])
		}
	}
	if len(a) > len(b) {
		return fmt.Sprintf("ref lacks %q", a[len(b)])
	}
	return fmt.Sprintf("ours lacks %q", b[len(a)])
}

func (s *side) relocs(i int) ([]string, error) {
	rs, err := elf.Relocs(s.f, i, len(s.f.Symbols))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("(%#x %s %s %+#x)", r.Offset, elf.RelocTypeName(r.Type), s.symName(r.Sym), r.Addend)
	}
	return out, nil
}

func (s *side) nvinfo(sec *elf.Section) ([]string, error) {
	attrs, err := elf.ParseNvInfo(sec.Data())
	if err != nil {
		return nil, err
	}
	out := make([]string, len(attrs))
	for i := range attrs {
		a := &attrs[i]
		var b strings.Builder
		fmt.Fprintf(&b, "(%s %s", elf.FormatName(a.Format), elf.AttrName(a.Code))
		switch {
		case a.Format != elf.EIFmtSVal:
			fmt.Fprintf(&b, " %#x", a.Value)
		case len(a.Payload)%4 != 0:
			fmt.Fprintf(&b, " % x", a.Payload)
		default:
			refs := a.SymbolRefs()
			for off := 0; off < len(a.Payload); off += 4 {
				if len(refs) > 0 && refs[0] == off {
					refs = refs[1:]
					fmt.Fprintf(&b, " sym %s", s.symName(a.U32(off)))
				} else {
					fmt.Fprintf(&b, " %#x", a.U32(off))
				}
			}
		}
		b.WriteString(")")
		out[i] = b.String()
	}
	return out, nil
}

// callgraph renders .nv.callgraph (blocks true) or .nv.prototype records by
// symbol names and prototype strings.
func (s *side) callgraph(sec *elf.Section, blocks bool) ([]string, error) {
	es, err := elf.ParseCallgraph(sec.Data())
	if err != nil {
		return nil, err
	}
	proto := func(off uint32) string {
		if str, ok := s.f.StrtabString(off); ok {
			return fmt.Sprintf("proto %q", str)
		}
		return fmt.Sprintf("proto %#x", off)
	}
	out := make([]string, len(es))
	block := int32(-1)
	for i, e := range es {
		switch {
		case blocks && e.IsMarker():
			block = e.Callee
			out[i] = fmt.Sprintf("(marker %d)", e.Callee)
		case blocks && !elf.CallgraphProtoBlock(block):
			out[i] = fmt.Sprintf("(%s -> %s)", s.symName(e.Caller), s.symName(uint32(e.Callee)))
		default:
			out[i] = fmt.Sprintf("(%s %s)", s.symName(e.Caller), proto(uint32(e.Callee)))
		}
	}
	return out, nil
}

func (c *comparer) symbols() {
	o, r := c.o, c.r
	for i, k := range r.symKeys {
		if _, ok := o.symIdx[k]; !ok {
			c.add("symbol", true, "symbol %s (ref [%d]) missing from ours", k, i)
		}
	}
	for i, k := range o.symKeys {
		if _, ok := r.symIdx[k]; !ok {
			c.add("symbol", true, "symbol %s (ours [%d]) not in ref", k, i)
		}
	}
	if n, ok, rk, diff := commonOrder(o.symKeys, r.symKeys, o.symIdx, r.symIdx); diff {
		c.add("symbol order", false, "symbol order differs from position %d: ours %s [%d], ref %s [%d]",
			n, ok, o.symIdx[ok], rk, r.symIdx[rk])
	}
	for i, k := range o.symKeys {
		j, ok := r.symIdx[k]
		if !ok {
			continue
		}
		os, rs := &o.f.Symbols[i], &r.f.Symbols[j]
		var d []string
		if os.Value != rs.Value {
			d = append(d, fmt.Sprintf("value ours %#x, ref %#x", os.Value, rs.Value))
		}
		if os.Size != rs.Size {
			d = append(d, fmt.Sprintf("size ours %#x, ref %#x", os.Size, rs.Size))
		}
		if os.Info != rs.Info {
			d = append(d, fmt.Sprintf("info ours %#x (%s %s), ref %#x (%s %s)",
				os.Info, elf.SymBindName(os.Bind()), elf.SymTypeName(os.Type()),
				rs.Info, elf.SymBindName(rs.Bind()), elf.SymTypeName(rs.Type())))
		}
		if os.Other != rs.Other {
			d = append(d, fmt.Sprintf("other ours %#x, ref %#x", os.Other, rs.Other))
		}
		if osec, rsec := o.symSection(os), r.symSection(rs); osec != rsec {
			d = append(d, fmt.Sprintf("section ours %s, ref %s", osec, rsec))
		}
		if len(d) > 0 {
			c.add("symbol", true, "symbol %s: %s", k, strings.Join(d, "; "))
		}
	}
}

func (c *comparer) progs() {
	op, rp := c.o.f.Progs, c.r.f.Progs
	if len(op) != len(rp) {
		c.add("program header", true, "program headers: ours %d, ref %d", len(op), len(rp))
	}
	for i := range min(len(op), len(rp)) {
		o, r := &op[i], &rp[i]
		var d []string
		num := func(field string, ov, rv uint64) {
			if ov != rv {
				d = append(d, fmt.Sprintf("%s ours %#x, ref %#x", field, ov, rv))
			}
		}
		num("type", uint64(o.Type), uint64(r.Type))
		num("flags", uint64(o.Flags), uint64(r.Flags))
		num("vaddr", o.Vaddr, r.Vaddr)
		num("paddr", o.Paddr, r.Paddr)
		num("align", o.Align, r.Align)
		ocov, rcov := c.o.coverage(o), c.r.coverage(r)
		if !slices.Equal(ocov, rcov) {
			d = append(d, fmt.Sprintf("covers ours [%s], ref [%s]", strings.Join(ocov, " "), strings.Join(rcov, " ")))
			num("filesz", o.Filesz, r.Filesz)
			num("memsz", o.Memsz, r.Memsz)
		}
		if len(d) > 0 {
			c.add("program header", true, "program header %d: %s", i, strings.Join(d, "; "))
		}
		var l []string
		if o.Off != r.Off {
			l = append(l, fmt.Sprintf("offset ours %#x, ref %#x", o.Off, r.Off))
		}
		if slices.Equal(ocov, rcov) && (o.Filesz != r.Filesz || o.Memsz != r.Memsz) {
			l = append(l, fmt.Sprintf("filesz/memsz ours %#x/%#x, ref %#x/%#x", o.Filesz, o.Memsz, r.Filesz, r.Memsz))
		}
		if len(l) > 0 {
			c.add("program header", false, "program header %d: %s", i, strings.Join(l, "; "))
		}
	}
}

// coverage lists, sorted, the sections a segment covers.
func (s *side) coverage(p *elf.Prog) []string {
	var out []string
	for _, i := range s.f.SegmentSections(p) {
		out = append(out, s.secKeys[i])
	}
	slices.Sort(out)
	return out
}

// isSymtab reports whether s is f's symbol table (the one its symbols come
// from).
func isSymtab(f *elf.File, s *elf.Section) bool {
	return f.SymtabIndex > 0 && int(f.SymtabIndex) < len(f.Sections) && s == &f.Sections[f.SymtabIndex]
}
