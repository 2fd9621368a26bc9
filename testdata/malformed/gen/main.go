// Command gen rebuilds the malformed-input corpus in testdata/malformed from
// real files of the bundled corpus: each output is one failure class (a
// truncation, a lying size or index, a wrong ELF class, a corrupt archive
// or fatbinary, ...). It also writes MANIFEST, one "file<TAB>want<TAB>class"
// line per input, where want is "error" (a linker must reject the input) or
// "tolerate" (it may link it, but must not crash or hang). Run it from the
// repository root:
//
//	go run ./testdata/malformed/gen
//
// (-o DIR writes them elsewhere: internal/e2e's TestMalformedCorpusCurrent
// rebuilds them so and compares.)
//
// The output is deterministic, so a rebuild changes nothing unless a case
// was added or changed.
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/warplink/warplink/elf"
)

const corpus = "testdata/corpus/cuda11.8-sm_90"

var le = binary.LittleEndian

// Case is one malformed input: the file it is written as, what is wrong
// with it, and how it is made from its base file.
type Case struct {
	Name  string
	Class string
	Base  string // path under corpus, "" for inputs made from nothing
	Make  func(b []byte) []byte
}

// tolerated reports the inputs warplink may link: damage that nvlink 11.8
// also accepts, or an out-of-range reference in an optional table that the
// linker skips, or an undecodable archive member or host object that is
// not a cubin named on the command line (nvlink ignores such inputs when
// they are merely not device code). Every other input must be rejected.
func tolerated(name string) bool {
	switch name {
	case "ar-bad-magic.a", "ar-magic-only.a", "ar-member-bad-hostobj.a",
		"ar-cubin-member-bad.a", "ar-cubin-member-trunc-shtab.a", "hostobj-trunc.o",
		"hostobj-relfatbin-offset-huge.o", "etype-core.cubin", "sh-addralign-odd.cubin",
		"callgraph-index-out-of-range.cubin", "callgraph-callee-out-of-range.cubin",
		"callgraph-size-ragged.cubin", "prototype-sym-out-of-range.cubin",
		"nvinfo-sym-out-of-range.cubin", "symtab-info-out-of-range.cubin",
		"sym-size-huge.cubin", "sym-value-past-section.cubin", "rela-entsize-wrong.cubin",
		"rela-link-out-of-range.cubin", "rela-offset-at-end.cubin", "nobits-size-huge.cubin",
		"symtab-size-ragged.cubin":
		return true
	}
	return false
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	outDir := flag.String("o", "testdata/malformed", "the directory to write the corpus into")
	flag.Parse()
	return write(*outDir)
}

// write rebuilds the corpus and its MANIFEST in outDir.
func write(outDir string) error {
	cases := cases()
	old, _ := filepath.Glob(filepath.Join(outDir, "*"))
	for _, p := range old {
		if filepath.Base(p) != "gen" && filepath.Base(p) != "README.md" {
			os.Remove(p)
		}
	}
	var manifest bytes.Buffer
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	for i, c := range cases {
		if i > 0 && cases[i-1].Name == c.Name {
			return fmt.Errorf("duplicate case %s", c.Name)
		}
		var base []byte
		if c.Base != "" {
			b, err := os.ReadFile(filepath.Join(corpus, c.Base))
			if err != nil {
				return err
			}
			base = b
		}
		out := c.Make(bytes.Clone(base))
		if err := os.WriteFile(filepath.Join(outDir, c.Name), out, 0o644); err != nil {
			return err
		}
		want := "error"
		if tolerated(c.Name) {
			want = "tolerate"
		}
		fmt.Fprintf(&manifest, "%s\t%s\t%s\n", c.Name, want, c.Class)
	}
	return os.WriteFile(filepath.Join(outDir, "MANIFEST"), manifest.Bytes(), 0o644)
}

// The base files: a cubin that links alone (a kernel with relocations,
// nv.info, shared memory, a callgraph and a prototype), the host object
// compiled from the same source, and archives of host objects and cubins.
const (
	cubin   = "shared/b.cubin"
	hostObj = "shared/b.o"
	archive = "archive/libdev.a"
	cubinAr = "archive/libdev_cubin.a"
)

// Sections of the base cubin.
const (
	text  = ".text._Z12shared_otherPfi"
	rela  = ".rela.text._Z12shared_otherPfi"
	finfo = ".nv.info._Z12shared_otherPfi"
)

// mustParse decodes a base file; the bases are known-good.
func mustParse(b []byte) *elf.File {
	f, err := elf.Parse(b)
	if err != nil {
		panic(err)
	}
	return f
}

// section returns the header of the named section of f.
func section(f *elf.File, name string) elf.Shdr {
	h, _ := f.Shdr(sectionIndex(f, name))
	return h
}

// sectionIndex returns the index of the named section of f.
func sectionIndex(f *elf.File, name string) int {
	for i := range f.Sections {
		if f.SecName(i) == name {
			return i
		}
	}
	panic("no section " + name)
}

// shdr returns the offset of section i's header.
func shdr(f *elf.File, i int) int { return int(f.Header.Shoff) + i*elf.ShdrSize }

// Section header field offsets.
const (
	shName = 0
	shType = 4
	shOff  = 24
	shSize = 32
	shLink = 40
	shInfo = 44
	shAlgn = 48
	shEnt  = 56
)

// setShdr64 and setShdr32 overwrite a field of the named section's header.
func setShdr64(name string, field int, v uint64) func([]byte) []byte {
	return func(b []byte) []byte {
		f := mustParse(b)
		le.PutUint64(b[shdr(f, sectionIndex(f, name))+field:], v)
		return b
	}
}

func setShdr32(name string, field int, v uint32) func([]byte) []byte {
	return func(b []byte) []byte {
		f := mustParse(b)
		le.PutUint32(b[shdr(f, sectionIndex(f, name))+field:], v)
		return b
	}
}

// withFile applies fn to b and its decoded form.
func withFile(fn func(f *elf.File, b []byte) []byte) func([]byte) []byte {
	return func(b []byte) []byte { return fn(mustParse(b), b) }
}

// resizeSection changes the named section's sh_size by delta.
func resizeSection(name string, delta int) func([]byte) []byte {
	return withFile(func(f *elf.File, b []byte) []byte {
		le.PutUint64(b[shdr(f, sectionIndex(f, name))+shSize:], uint64(int(section(f, name).Size)+delta))
		return b
	})
}

// put16, put32 and put64 overwrite the file at a fixed offset.
func put16(off int, v uint16) func([]byte) []byte {
	return func(b []byte) []byte { le.PutUint16(b[off:], v); return b }
}

func put64(off int, v uint64) func([]byte) []byte {
	return func(b []byte) []byte { le.PutUint64(b[off:], v); return b }
}

func putByte(off int, v byte) func([]byte) []byte {
	return func(b []byte) []byte { b[off] = v; return b }
}

// inSection applies fn to the contents of the named section.
func inSection(name string, fn func(d []byte)) func([]byte) []byte {
	return func(b []byte) []byte {
		f := mustParse(b)
		s := section(f, name)
		fn(b[s.Offset : s.Offset+s.Size])
		return b
	}
}

// symbol returns the offset in the file of symbol i's entry.
func symbol(f *elf.File, i int) int {
	h, _ := f.Shdr(int(f.SymtabIndex))
	return int(h.Offset) + i*elf.SymSize
}

// globalSym returns the index of the first global symbol.
func globalSym(f *elf.File) int {
	for i, s := range f.Symbols {
		if s.Bind() == elf.STBGlobal && s.Shndx != 0 {
			return i
		}
	}
	panic("no global symbol")
}

// onSymbol applies fn to the entry of the first defined global symbol.
func onSymbol(fn func(e []byte)) func([]byte) []byte {
	return func(b []byte) []byte {
		f := mustParse(b)
		off := symbol(f, globalSym(f))
		fn(b[off : off+elf.SymSize])
		return b
	}
}

func truncate(n int) func([]byte) []byte {
	return func(b []byte) []byte { return b[:n] }
}

// random returns n deterministic pseudo-random bytes after prefix.
func random(prefix string, n int) func([]byte) []byte {
	return func([]byte) []byte {
		r := rand.New(rand.NewPCG(uint64(n), 0x5eed))
		out := []byte(prefix)
		for len(out) < n {
			out = append(out, byte(r.Uint32()))
		}
		return out
	}
}

// fatbinOff returns the offset of the fatbinary in a host object.
func fatbinOff(b []byte) int {
	return int(section(mustParse(b), "__nv_relfatbin").Offset)
}

// onFatbin applies fn to the fatbinary of a host object (container header
// at d[0:16], first member header at d[16:80]).
func onFatbin(fn func(d []byte)) func([]byte) []byte {
	return func(b []byte) []byte {
		f := mustParse(b)
		s := section(f, "__nv_relfatbin")
		fn(b[s.Offset : s.Offset+s.Size])
		return b
	}
}

// extractFatbin turns a host object into its bare fatbinary.
func extractFatbin(b []byte) []byte {
	f := mustParse(b)
	s := section(f, "__nv_relfatbin")
	return b[s.Offset : s.Offset+s.Size]
}

// then composes mutations left to right.
func then(fns ...func([]byte) []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		for _, fn := range fns {
			b = fn(b)
		}
		return b
	}
}

// Archive member header fields: name[16] date[12] uid[6] gid[6] mode[8]
// size[10] fmag[2].
const (
	arName = 0
	arSize = 48
	arFmag = 58
	arHdr  = 60
)

// arMember returns the header offset of the index-th member of an archive
// (the symbol table "/" is member 0).
func arMember(b []byte, index int) int {
	off := 8
	for i := 0; i < index; i++ {
		n, err := strconv.Atoi(string(bytes.TrimRight(b[off+arSize:off+arSize+10], " ")))
		if err != nil {
			panic(err)
		}
		off += arHdr + n
		off += off & 1
	}
	return off
}

// onArHeader overwrites a field of an archive member header.
func onArHeader(index, field int, text string) func([]byte) []byte {
	return func(b []byte) []byte {
		off := arMember(b, index) + field
		copy(b[off:], text)
		return b
	}
}

// onArMember applies fn to the data of an archive member (a cubin or a
// host object) in place.
func onArMember(index int, fn func([]byte) []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		off := arMember(b, index)
		n, _ := strconv.Atoi(string(bytes.TrimRight(b[off+arSize:off+arSize+10], " ")))
		data := b[off+arHdr : off+arHdr+n]
		copy(data, fn(bytes.Clone(data)))
		return b
	}
}

// firstReloc returns the offset of the first entry of the kernel's
// relocation section.
func firstReloc(b []byte) int {
	return int(section(mustParse(b), rela).Offset)
}

func cases() []Case {
	c := []Case{
		// Whole-file damage.
		{"empty.cubin", "zero-length file", "", func([]byte) []byte { return nil }},
		{"magic-only.cubin", "ELF magic and nothing else", "", func([]byte) []byte { return []byte("\x7fELF") }},
		{"random-elf-magic.cubin", "ELF magic followed by random bytes", "", random("\x7fELF", 256)},
		{"random-elf64-magic.cubin", "ELF64 LE ident followed by random bytes", "", random("\x7fELF\x02\x01\x01", 512)},
		{"random.cubin", "random bytes, no magic", "", random("", 300)},
		{"text.cubin", "a text file named .cubin", "", func([]byte) []byte { return []byte("hello, world\n") }},
		{"trunc-ident.cubin", "truncated inside e_ident", cubin, truncate(10)},
		{"trunc-header.cubin", "truncated inside the ELF header", cubin, truncate(40)},
		{"trunc-section-data.cubin", "truncated in the middle of .text", cubin, withFile(func(f *elf.File, b []byte) []byte {
			s := section(f, text)
			return b[:s.Offset+s.Size/2]
		})},
		{"trunc-shtab.cubin", "truncated in the middle of the section header table", cubin, withFile(func(f *elf.File, b []byte) []byte {
			return b[:shdr(f, 5)+20]
		})},
		{"trunc-last-byte.cubin", "last byte of the section header table missing", cubin, func(b []byte) []byte { return b[:len(b)-1] }},

		// ELF header.
		{"elf32.cubin", "EI_CLASS is ELFCLASS32", cubin, putByte(4, 1)},
		{"bigendian.cubin", "EI_DATA is ELFDATA2MSB", cubin, putByte(5, 2)},
		{"bad-class.cubin", "EI_CLASS is 0 (none)", cubin, putByte(4, 0)},
		{"wrong-machine.cubin", "e_machine is x86-64 (62), not CUDA (190)", cubin, put16(18, 62)},
		{"etype-core.cubin", "e_type is ET_CORE", cubin, put16(16, 4)},
		{"wrong-sm.cubin", "e_flags say sm_52", cubin, then(putByte(48, 52), putByte(50, 52))},
		{"shoff-huge.cubin", "e_shoff far past the end of the file", cubin, put64(40, 0xFFFFFFFFFFFF0000)},
		{"shoff-near-end.cubin", "e_shoff 16 bytes before the end of the file", cubin, func(b []byte) []byte {
			le.PutUint64(b[40:], uint64(len(b)-16))
			return b
		}},
		{"shentsize-wrong.cubin", "e_shentsize is 40", cubin, put16(58, 40)},
		{"shnum-huge.cubin", "e_shnum is 0xFF00, the table would run past the end", cubin, put16(60, 0xFF00)},
		{"shstrndx-out-of-range.cubin", "e_shstrndx names section 200 of 16", cubin, put16(62, 200)},
		{"shstrndx-not-strtab.cubin", "e_shstrndx names .text", cubin, withFile(func(f *elf.File, b []byte) []byte {
			le.PutUint16(b[62:], uint16(sectionIndex(f, text)))
			return b
		})},
		{"ext-shnum-lie.cubin", "e_shnum 0 with section 0 sh_size 0xFFFFFFFF (extended numbering)", cubin, withFile(func(f *elf.File, b []byte) []byte {
			le.PutUint64(b[shdr(f, 0)+shSize:], 0xFFFFFFFF)
			le.PutUint16(b[60:], 0)
			return b
		})},
		{"ext-shstrndx-lie.cubin", "e_shstrndx SHN_XINDEX with section 0 sh_link 1000", cubin, withFile(func(f *elf.File, b []byte) []byte {
			le.PutUint32(b[shdr(f, 0)+shLink:], 1000)
			le.PutUint16(b[62:], 0xFFFF)
			return b
		})},
		{"phoff-huge.cubin", "e_phoff past the end with e_phnum 1", cubin,
			then(put64(32, 0xFFFFFFFFF0), put16(54, elf.PhdrSize), put16(56, 1))},

		// Section headers.
		{"sh-offset-huge.cubin", ".text sh_offset 2^63", cubin, setShdr64(text, shOff, 1<<63)},
		{"sh-size-huge.cubin", ".text sh_size 2^47", cubin, setShdr64(text, shSize, 1<<47)},
		{"sh-offset-wraps.cubin", ".text sh_offset+sh_size wraps around 2^64", cubin,
			then(setShdr64(text, shSize, 0x20), setShdr64(text, shOff, 0xFFFFFFFFFFFFFFF0))},
		{"nobits-size-huge.cubin", ".nv.shared (NOBITS) sh_size 2^62", cubin, setShdr64(".nv.shared._Z12shared_otherPfi", shSize, 1<<62)},
		{"sh-name-past-shstrtab.cubin", ".text sh_name past the end of .shstrtab", cubin, setShdr32(text, shName, 0x10000)},
		{"sh-addralign-huge.cubin", ".text sh_addralign 2^63", cubin, setShdr64(text, shAlgn, 1<<63)},
		{"sh-addralign-odd.cubin", ".text sh_addralign 3 (not a power of two)", cubin, setShdr64(text, shAlgn, 3)},
		{"shstrtab-no-nul.cubin", ".shstrtab does not end in NUL", cubin, inSection(".shstrtab", func(d []byte) { d[len(d)-1] = 'X' })},
		{"strtab-no-nul.cubin", ".strtab does not end in NUL", cubin, inSection(".strtab", func(d []byte) { d[len(d)-1] = 'X' })},

		// Symbols.
		{"symtab-entsize-wrong.cubin", ".symtab sh_entsize 16", cubin, setShdr64(".symtab", shEnt, 16)},
		{"symtab-size-ragged.cubin", ".symtab sh_size not a multiple of 24", cubin, resizeSection(".symtab", -5)},
		{"symtab-link-out-of-range.cubin", ".symtab sh_link names section 99", cubin, setShdr32(".symtab", shLink, 99)},
		{"symtab-link-not-strtab.cubin", ".symtab sh_link names .text", cubin, withFile(func(f *elf.File, b []byte) []byte {
			le.PutUint32(b[shdr(f, int(f.SymtabIndex))+shLink:], uint32(sectionIndex(f, text)))
			return b
		})},
		{"symtab-info-out-of-range.cubin", ".symtab sh_info (first global) 1000", cubin, setShdr32(".symtab", shInfo, 1000)},
		{"sym-name-past-strtab.cubin", "a global symbol's st_name past the end of .strtab", cubin, onSymbol(func(e []byte) { le.PutUint32(e, 0xFFFF0) })},
		{"sym-shndx-out-of-range.cubin", "a global symbol's st_shndx is 200 of 16", cubin, onSymbol(func(e []byte) { le.PutUint16(e[6:], 200) })},
		{"sym-shndx-reserved.cubin", "a global symbol's st_shndx is the reserved 0xFF0C (found by FuzzLink)", cubin, onSymbol(func(e []byte) { le.PutUint16(e[6:], 0xFF0C) })},
		{"sym-xindex-no-table.cubin", "st_shndx SHN_XINDEX without .symtab_shndx", cubin, onSymbol(func(e []byte) { le.PutUint16(e[6:], 0xFFFF) })},
		{"sym-value-past-section.cubin", "a function symbol's st_value past its section", cubin, onSymbol(func(e []byte) { le.PutUint64(e[8:], 0xFFFFFFFF00) })},
		{"sym-size-huge.cubin", "a function symbol's st_size 2^62", cubin, onSymbol(func(e []byte) { le.PutUint64(e[16:], 1<<62) })},

		// Relocations.
		{"rela-entsize-wrong.cubin", ".rela.text sh_entsize 16", cubin, setShdr64(rela, shEnt, 16)},
		{"rela-size-ragged.cubin", ".rela.text sh_size not a multiple of 24", cubin, resizeSection(rela, -8)},
		{"rela-offset-past-section.cubin", "a relocation's r_offset past the end of .text", cubin, func(b []byte) []byte {
			le.PutUint64(b[firstReloc(b):], 0xFFFFFFF0)
			return b
		}},
		{"rela-offset-at-end.cubin", "a relocation's r_offset 4 bytes before the end of .text (patch would overrun)", cubin, withFile(func(f *elf.File, b []byte) []byte {
			le.PutUint64(b[firstReloc(b):], section(f, text).Size-4)
			return b
		})},
		{"rela-sym-out-of-range.cubin", "a relocation's symbol index 0xFFFF", cubin, func(b []byte) []byte {
			off := firstReloc(b) + 8
			le.PutUint64(b[off:], le.Uint64(b[off:])&0xFFFFFFFF|0xFFFF<<32)
			return b
		}},
		{"rela-type-unknown.cubin", "a relocation's type 0xFFF", cubin, func(b []byte) []byte {
			off := firstReloc(b) + 8
			le.PutUint64(b[off:], le.Uint64(b[off:])&^0xFFFFFFFF|0xFFF)
			return b
		}},
		{"rela-info-out-of-range.cubin", ".rela.text sh_info (target section) 99", cubin, setShdr32(rela, shInfo, 99)},
		{"rela-link-out-of-range.cubin", ".rela.text sh_link (symbol table) 99", cubin, setShdr32(rela, shLink, 99)},

		// CUDA sections.
		{"nvinfo-size-past-end.cubin", ".nv.info EIFMT_SVAL record size 0xFFFF", cubin, inSection(".nv.info", func(d []byte) { le.PutUint16(d[2:], 0xFFFF) })},
		{"nvinfo-truncated.cubin", ".nv.info sh_size cuts a record header", cubin, resizeSection(".nv.info", -2)},
		{"nvinfo-bad-format.cubin", ".nv.info record format 9", cubin, inSection(".nv.info", func(d []byte) { d[0] = 9 })},
		{"nvinfo-sym-out-of-range.cubin", ".nv.info record names symbol 0xFFFFFF", cubin, inSection(".nv.info", func(d []byte) { le.PutUint32(d[4:], 0xFFFFFF) })},
		{"nvinfo-func-info-out-of-range.cubin", ".nv.info.<kernel> sh_info (function section) 99", cubin, setShdr32(finfo, shInfo, 99)},
		{"nvinfo-regcount-short.cubin", ".nv.info EIATTR_REGCOUNT of the kernel with a 4-byte payload (no count), the kernel calling a function with one", cubin, shortRegcount},
		{"callgraph-index-out-of-range.cubin", ".nv.callgraph entry names symbol 0xFFFF", cubin, inSection(".nv.callgraph", func(d []byte) { le.PutUint32(d[0:], 0xFFFF) })},
		{"callgraph-callee-out-of-range.cubin", ".nv.callgraph callee names symbol 0xFFFFFFF0", cubin, inSection(".nv.callgraph", func(d []byte) { le.PutUint32(d[4:], 0xFFFFFFF0) })},
		{"callgraph-size-ragged.cubin", ".nv.callgraph sh_size not a multiple of 8", cubin, resizeSection(".nv.callgraph", -3)},
		{"prototype-sym-out-of-range.cubin", ".nv.prototype entry names symbol 0xFFFF", cubin, inSection(".nv.prototype", func(d []byte) { le.PutUint32(d[0:], 0xFFFF) })},

		// Host objects.
		{"hostobj-trunc.o", "host object truncated in the middle", hostObj, truncate(0x400)},
		{"hostobj-relfatbin-truncated.o", "__nv_relfatbin sh_size 0x100, shorter than its fatbinary", hostObj, setShdr64("__nv_relfatbin", shSize, 0x100)},
		{"hostobj-relfatbin-offset-huge.o", "__nv_relfatbin sh_offset past the end", hostObj, setShdr64("__nv_relfatbin", shOff, 0xFFFFFFFF)},
		{"hostobj-relfatbin-no-magic.o", "__nv_relfatbin without the fatbinary magic", hostObj, onFatbin(func(d []byte) { copy(d, "JUNK") })},
		{"fatbin-header-size-lie.o", "fatbinary container header size 8", hostObj, onFatbin(func(d []byte) { le.PutUint16(d[6:], 8) })},
		{"fatbin-size-lie.o", "fatbinary container size 2^40", hostObj, onFatbin(func(d []byte) { le.PutUint64(d[8:], 1<<40) })},
		{"fatbin-member-header-size-lie.o", "fatbinary member header size 0xFFFFFF", hostObj, onFatbin(func(d []byte) { le.PutUint32(d[16+4:], 0xFFFFFF) })},
		{"fatbin-member-size-lie.o", "fatbinary member payload size 2^40", hostObj, onFatbin(func(d []byte) { le.PutUint64(d[16+8:], 1<<40) })},
		{"fatbin-member-compressed-size-lie.o", "fatbinary member compressed size larger than its payload", hostObj, onFatbin(func(d []byte) { le.PutUint32(d[16+16:], 0xFFFFFF) })},
		{"fatbin-member-uncompressed-lie.o", "fatbinary member uncompressed size 2^40", hostObj, onFatbin(func(d []byte) { le.PutUint64(d[16+56:], 1<<40) })},
		{"fatbin-member-bad-lz4.o", "fatbinary member's LZ4 data is garbage", hostObj, onFatbin(func(d []byte) {
			for i := 16 + 64; i < len(d); i++ {
				d[i] = 0xFF
			}
		})},
		{"fatbin-member-lz4-short.o", "fatbinary member's LZ4 data expands to fewer bytes than declared", hostObj, onFatbin(func(d []byte) {
			le.PutUint64(d[16+56:], le.Uint64(d[16+56:])+64)
		})},
		{"fatbin-member-bad-elf.o", "fatbinary member stored uncompressed with a corrupt ELF", hostObj, onFatbin(func(d []byte) {
			le.PutUint64(d[16+40:], le.Uint64(d[16+40:])&^0xF000)
			copy(d[16+64:], "\x7fELF\x02\x01\x01\x00")
			for i := 16 + 64 + 8; i < len(d); i++ {
				d[i] = 0xEE
			}
		})},
		{"fatbin-trunc.fatbin", "bare fatbinary truncated inside its member", hostObj, then(extractFatbin, truncate(0x200))},
		{"fatbin-container-only.fatbin", "bare fatbinary: container header only, size says 0x600", hostObj, then(extractFatbin, truncate(16))},
		{"fatbin-member-size-lie.fatbin", "bare fatbinary: member payload size 2^40", hostObj, then(extractFatbin, func(d []byte) []byte { le.PutUint64(d[16+8:], 1<<40); return d })},

		// Archives.
		{"ar-bad-magic.a", "archive magic '!<arck>'", archive, func(b []byte) []byte { copy(b, "!<arck>\n"); return b }},
		{"ar-magic-only.a", "archive magic and nothing else", archive, truncate(8)},
		{"ar-trunc-header.a", "archive truncated inside a member header", archive, truncate(8 + 30)},
		{"ar-trunc-member.a", "archive truncated inside a member", archive, func(b []byte) []byte { return b[:arMember(b, 2)+arHdr+100] }},
		{"ar-bad-fmag.a", "archive member header terminator (ar_fmag) is 'XX'", archive, onArHeader(1, arFmag, "XX")},
		{"ar-member-size-past-end.a", "archive member size 999999999", archive, onArHeader(1, arSize, "999999999 ")},
		{"ar-member-size-not-digits.a", "archive member size '12x4'", archive, onArHeader(1, arSize, "12x4      ")},
		{"ar-longname-out-of-range.a", "GNU long-name reference '/99999' without a long-name table", archive, onArHeader(1, arName, "/99999          ")},
		{"ar-member-bad-hostobj.a", "archive member host object with e_shoff past the end", archive,
			onArMember(1, put64(40, 0xFFFFFFFFFF))},
		{"ar-member-bad-fatbin.a", "archive member host object with a lying fatbinary size", archive,
			onArMember(1, onFatbin(func(d []byte) { le.PutUint64(d[8:], 1<<40) }))},
		{"ar-cubin-member-bad.a", "cubin archive member with e_shnum 0xFF00", cubinAr, onArMember(1, put16(60, 0xFF00))},
		{"ar-cubin-member-trunc-shtab.a", "cubin archive member whose section table is cut", cubinAr, onArMember(1, func(m []byte) []byte {
			le.PutUint64(m[40:], uint64(len(m)-100))
			return m
		})},
	}
	return c
}

// shortRegcount makes the base cubin's kernel (_Z12shared_otherPfi, symbol
// 9) call its device function (_Z11reduce_tilePfi, symbol 10, 62
// registers) in .nv.callgraph, and cuts the kernel's EIATTR_REGCOUNT
// record in .nv.info to the symbol alone: the records after it move up
// and the section shrinks by the 4 bytes. Propagating the callee's count
// then has no count field to raise.
func shortRegcount(b []byte) []byte {
	f := mustParse(b)
	cg := section(f, ".nv.callgraph")
	d := b[cg.Offset : cg.Offset+cg.Size]
	le.PutUint32(d[0:], 9) // the first record, <0,-1>, becomes the edge 9 -> 10
	le.PutUint32(d[4:], 10)
	info := section(f, ".nv.info")
	d = b[info.Offset : info.Offset+info.Size]
	const rec = 36 // the fourth record: EIFMT_SVAL EIATTR_REGCOUNT, 8 bytes, symbol 9
	if d[rec] != 0x04 || d[rec+1] != byte(elf.EIAttrRegcount) || le.Uint16(d[rec+2:]) != 8 || le.Uint32(d[rec+4:]) != 9 {
		panic("base cubin's .nv.info changed")
	}
	le.PutUint16(d[rec+2:], 4)
	copy(d[rec+8:], d[rec+12:])
	return resizeSection(".nv.info", -4)(b)
}
