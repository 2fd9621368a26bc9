package gen

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/warplink/warplink/elf"
)

var le = binary.LittleEndian

// Rename returns a copy of the relocatable cubin f in which every identifier
// named in idents is renamed to idents[old]. It rewrites both string tables
// (.strtab and .shstrtab), so that symbol names, the names of per-function
// sections (.text.<fn>, .nv.info.<fn>, .rela.text.<fn>, .nv.constant0.<fn>,
// .nv.shared.<fn>, ...) and function-local statics all follow, then fixes
// every st_name, sh_name and .nv.prototype string offset and lays the file
// out again with a fresh section header table.
//
// An identifier is renamed wherever it occurs as a whole string ("counter"),
// as the last component of a dotted section name (".nv.global.counter"), or
// as a length-prefixed Itanium source name inside a mangled name
// ("10xcall_main" in "_Z10xcall_mainPfi" becomes "14xcall_main_u7" when the
// new name is "xcall_main_u7"), so mangled names stay well formed.
func Rename(f *elf.File, idents map[string]string) ([]byte, error) {
	if f.Header.Type != elf.ETRel {
		return nil, fmt.Errorf("not a relocatable file (e_type %d)", f.Header.Type)
	}
	if f.Header.Phnum != 0 {
		return nil, fmt.Errorf("relocatable file has program headers")
	}
	r := renamer{idents: idents}
	for old, nu := range idents {
		r.mangled = append(r.mangled, [2]string{strconv.Itoa(len(old)) + old, strconv.Itoa(len(nu)) + nu})
	}
	// Longest first, so that a name never shadows a longer one it prefixes.
	sort.Slice(r.mangled, func(i, j int) bool {
		if len(r.mangled[i][0]) != len(r.mangled[j][0]) {
			return len(r.mangled[i][0]) > len(r.mangled[j][0])
		}
		return r.mangled[i][0] < r.mangled[j][0]
	})

	shstrndx := int(f.Header.Shstrndx)
	if shstrndx == 0 || shstrndx >= len(f.Sections) {
		return nil, fmt.Errorf("no section name string table")
	}
	data := make([][]byte, len(f.Sections))
	for i := range f.Sections {
		data[i] = f.Sections[i].Data()
	}

	shTab, shMap := r.table(f.Sections[shstrndx].Data())
	data[shstrndx] = shTab
	strMap := shMap
	if f.StrtabIndex != 0 && int(f.StrtabIndex) != shstrndx {
		var tab []byte
		tab, strMap = r.table(f.Sections[f.StrtabIndex].Data())
		data[f.StrtabIndex] = tab
	}

	nameOff := make([]uint32, len(f.Sections))
	for i := 1; i < len(f.Sections); i++ {
		off, err := shMap.remap(f.Sections[i].NameOff)
		if err != nil {
			return nil, fmt.Errorf("section %d name: %v", i, err)
		}
		nameOff[i] = off
	}
	if f.SymtabIndex != 0 {
		sym := append([]byte(nil), f.Sections[f.SymtabIndex].Data()...)
		for i := 0; i+elf.SymSize <= len(sym); i += elf.SymSize {
			off, err := strMap.remap(le.Uint32(sym[i:]))
			if err != nil {
				return nil, fmt.Errorf("symbol %d name: %v", i/elf.SymSize, err)
			}
			le.PutUint32(sym[i:], off)
		}
		data[f.SymtabIndex] = sym
	}
	// .nv.prototype entries are (symbol index, .strtab offset of the
	// prototype string) pairs.
	for i := range f.Sections {
		s := &f.Sections[i]
		if s.Type != elf.SHTCudaPrototype || len(s.Data()) == 0 {
			continue
		}
		if len(s.Data())%8 != 0 {
			return nil, fmt.Errorf("%s: size %d is not a multiple of 8", f.SecName(i), len(s.Data()))
		}
		p := append([]byte(nil), s.Data()...)
		for j := 0; j < len(p); j += 8 {
			off, err := strMap.remap(le.Uint32(p[j+4:]))
			if err != nil {
				return nil, fmt.Errorf("%s entry %d: %v", f.SecName(i), j/8, err)
			}
			le.PutUint32(p[j+4:], off)
		}
		data[i] = p
	}
	return layout(f, data, nameOff), nil
}

// renamer rewrites the strings of a string table.
type renamer struct {
	idents  map[string]string
	mangled [][2]string // length-prefixed source names, old and new
}

// rename returns the new spelling of one string-table entry.
func (r *renamer) rename(s string) string {
	if nu, ok := r.idents[s]; ok {
		return nu
	}
	if dot := strings.LastIndexByte(s, '.'); dot >= 0 {
		if nu, ok := r.idents[s[dot+1:]]; ok {
			return s[:dot+1] + nu
		}
	}
	if !strings.Contains(s, "_Z") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if i > 0 && !isDigit(s[i-1]) && isDigit(s[i]) {
			if m := r.matchMangled(s[i:]); m >= 0 {
				b.WriteString(r.mangled[m][1])
				i += len(r.mangled[m][0])
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func (r *renamer) matchMangled(s string) int {
	for k, m := range r.mangled {
		if strings.HasPrefix(s, m[0]) {
			return k
		}
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// strMap maps offsets of an old string table to the rewritten one.
type strMap struct {
	starts []uint32 // old start offset of each string, ascending
	ents   []strEnt
}

type strEnt struct {
	oldLen, newStart, newLen uint32
	old, nu                  string // the string before and after renaming, to check suffix references
}

// table rewrites a string table string by string, keeping the order, and
// returns the new table with the offset map.
func (r *renamer) table(old []byte) ([]byte, *strMap) {
	m := &strMap{}
	out := make([]byte, 0, len(old)+len(old)/4)
	for start := 0; start < len(old); {
		end := start
		for end < len(old) && old[end] != 0 {
			end++
		}
		s := string(old[start:end])
		nu := s
		if start > 0 || s != "" {
			nu = r.rename(s)
		}
		m.starts = append(m.starts, uint32(start))
		m.ents = append(m.ents, strEnt{oldLen: uint32(len(s)), newStart: uint32(len(out)), newLen: uint32(len(nu)), old: s, nu: nu})
		out = append(out, nu...)
		out = append(out, 0)
		start = end + 1
	}
	return out, m
}

// remap translates an offset into the old table. An offset into the middle
// of a string (a shared suffix) keeps its distance from the string's end,
// which is valid only when renaming left that suffix as it was.
func (m *strMap) remap(off uint32) (uint32, error) {
	i := sort.Search(len(m.starts), func(i int) bool { return m.starts[i] > off }) - 1
	if i < 0 || off > m.starts[i]+m.ents[i].oldLen {
		return 0, fmt.Errorf("string offset 0x%x is outside the table", off)
	}
	e := &m.ents[i]
	if off == m.starts[i] {
		return e.newStart, nil
	}
	suffix := e.oldLen - (off - m.starts[i])
	if suffix > e.newLen || !strings.HasSuffix(e.nu, e.old[len(e.old)-int(suffix):]) {
		return 0, fmt.Errorf("string offset 0x%x points into a renamed string", off)
	}
	return e.newStart + e.newLen - suffix, nil
}

// layout writes an ELF64 relocatable file: the header, the sections with
// contents in their original file order (each at its alignment), then the
// section header table. data[i] replaces section i's contents; nameOff[i]
// its sh_name.
func layout(f *elf.File, data [][]byte, nameOff []uint32) []byte {
	order := make([]int, 0, len(f.Sections))
	for i := 1; i < len(f.Sections); i++ {
		order = append(order, i)
	}
	// (A File of the generator's own, without a section header table,
	// is laid out in index order.)
	offset := func(i int) uint64 {
		if h, ok := f.Shdr(i); ok {
			return h.Offset
		}
		return uint64(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return offset(order[a]) < offset(order[b]) })

	size := uint64(elf.EhdrSize)
	for i := range data {
		size += uint64(len(data[i])) + 128
	}
	out := make([]byte, elf.EhdrSize, size+uint64(len(f.Sections))*elf.ShdrSize)
	offs := make([]uint64, len(f.Sections))
	for _, i := range order {
		s := &f.Sections[i]
		out = pad(out, uint64(s.Addralign))
		offs[i] = uint64(len(out))
		if !elf.IsNobits(s.Type) {
			out = append(out, data[i]...)
		}
	}
	out = pad(out, 8)
	shoff := uint64(len(out))
	for i := range f.Sections {
		s := &f.Sections[i]
		var h [elf.ShdrSize]byte
		if i > 0 {
			sz := s.Size
			if !elf.IsNobits(s.Type) {
				sz = uint64(len(data[i]))
			}
			le.PutUint32(h[0:], nameOff[i])
			le.PutUint32(h[4:], s.Type)
			le.PutUint64(h[8:], f.SecFlags(i))
			sh, _ := f.Shdr(i)
			le.PutUint64(h[16:], sh.Addr)
			le.PutUint64(h[24:], offs[i])
			le.PutUint64(h[32:], sz)
			le.PutUint32(h[40:], sh.Link)
			le.PutUint32(h[44:], s.Info)
			le.PutUint64(h[48:], uint64(s.Addralign))
			le.PutUint64(h[56:], uint64(s.Entsize))
		}
		out = append(out, h[:]...)
	}
	h := &f.Header
	copy(out, h.Ident[:])
	le.PutUint16(out[16:], h.Type)
	le.PutUint16(out[18:], h.Machine)
	le.PutUint32(out[20:], h.Version)
	le.PutUint64(out[24:], h.Entry)
	le.PutUint64(out[32:], 0)
	le.PutUint64(out[40:], shoff)
	le.PutUint32(out[48:], h.Flags)
	le.PutUint16(out[52:], elf.EhdrSize)
	le.PutUint16(out[54:], h.Phentsize)
	le.PutUint16(out[56:], 0)
	le.PutUint16(out[58:], elf.ShdrSize)
	le.PutUint16(out[60:], uint16(len(f.Sections)))
	le.PutUint16(out[62:], h.Shstrndx)
	return out
}

func pad(b []byte, align uint64) []byte {
	if align <= 1 {
		return b
	}
	for uint64(len(b))%align != 0 {
		b = append(b, 0)
	}
	return b
}
