// Package ar decodes Unix archives as the CUDA toolchain writes them: GNU
// "!<arch>\n" archives (from ar and nvcc -lib) and thin "!<thin>\n" archives.
// It is pure: members alias the input and thin members are returned as
// paths, never read. Every size and offset is checked; malformed input
// yields an *elf.Error, never a panic.
package ar

import (
	"bytes"
	"fmt"

	"github.com/warplink/warplink/elf"
)

// Magic strings of regular and thin archives.
const (
	Magic     = "!<arch>\n"
	ThinMagic = "!<thin>\n"
)

const hdrSize = 60

// Member is one archive member.
type Member struct {
	// Name is the member name with GNU long names resolved and the
	// trailing '/' removed (for BSD "#1/N" members, the embedded name).
	Name string
	// Data is the member contents, aliasing the input (nil for thin members).
	Data []byte
	// Path is the file a thin member refers to, exactly as stored (usually
	// relative to the archive's directory); empty for regular members.
	Path string
	// Size is the size field of the member header.
	Size int64
	// Offset is the offset of the member header in the archive.
	Offset int64
	// BSD reports a BSD-style "#1/N" name; nvlink silently drops such members.
	BSD bool
}

// Archive is a decoded archive. Symbol tables ("/", "/SYM64/"), the GNU
// long-name table ("//") and "__.LIBDEP" are consumed, not listed.
type Archive struct {
	Thin    bool
	Members []Member
}

// IsArchive reports whether b starts with a regular or thin archive magic.
func IsArchive(b []byte) bool {
	return bytes.HasPrefix(b, []byte(Magic)) || bytes.HasPrefix(b, []byte(ThinMagic))
}

func errorf(format string, a ...any) error { return &elf.Error{Msg: fmt.Sprintf(format, a...)} }

// Parse decodes an archive.
func Parse(b []byte) (*Archive, error) {
	a := &Archive{}
	switch {
	case bytes.HasPrefix(b, []byte(Magic)):
	case bytes.HasPrefix(b, []byte(ThinMagic)):
		a.Thin = true
	default:
		return nil, errorf("not an archive")
	}
	var longNames []byte
	off := int64(len(Magic))
	size := int64(len(b))
	for off < size {
		if off&1 == 1 { // members start on even offsets; a '\n' pads odd sizes
			off++
			if off >= size {
				break
			}
		}
		if size-off < hdrSize {
			return nil, errorf("truncated archive member header at 0x%x", off)
		}
		h := b[off : off+hdrSize]
		if h[58] != '`' || h[59] != '\n' {
			return nil, errorf("bad archive member header at 0x%x", off)
		}
		msize, ok := decimal(h[48:58])
		if !ok {
			return nil, errorf("bad size %q in archive member header at 0x%x", bytes.TrimRight(h[48:58], " "), off)
		}
		name := string(bytes.TrimRight(h[:16], " "))
		dataOff := off + hdrSize
		// Thin archives hold no data for ordinary members; the symbol and
		// long-name tables are always stored.
		special := name == "/" || name == "//" || name == "/SYM64/"
		stored := !a.Thin || special
		var data []byte
		if stored {
			if msize > size-dataOff {
				return nil, errorf("archive member %q at 0x%x (size %d) goes past the end of the archive", name, off, msize)
			}
			data = b[dataOff : dataOff+msize : dataOff+msize]
		}
		m := Member{Size: msize, Offset: off}
		switch {
		case name == "/" || name == "/SYM64/":
			// symbol table: nvlink ignores the armap
		case name == "//":
			longNames = data
		case len(name) > 1 && name[0] == '/' && isDigits(name[1:]):
			n, _ := decimal([]byte(name[1:]))
			ln, ok := longName(longNames, n)
			if !ok {
				return nil, errorf("archive member at 0x%x has a bad long name offset %d", off, n)
			}
			m.Name = ln
		case len(name) > 3 && name[:3] == "#1/":
			n, ok := decimal([]byte(name[3:]))
			if !ok || n > msize || data == nil {
				return nil, errorf("archive member at 0x%x has a bad BSD name %q", off, name)
			}
			m.Name = string(bytes.TrimRight(data[:n], "\x00"))
			data = data[n:]
			m.BSD = true
		default:
			m.Name = name
			if len(name) > 1 && name[len(name)-1] == '/' {
				m.Name = name[:len(name)-1]
			}
		}
		if m.Name != "" && m.Name != "__.LIBDEP" && m.Name != "__.SYMDEF" && m.Name != "__.SYMDEF SORTED" {
			if a.Thin && !m.BSD {
				m.Path = m.Name
			} else {
				m.Data = data
			}
			a.Members = append(a.Members, m)
		}
		if stored {
			off = dataOff + msize
		} else {
			off = dataOff
		}
	}
	return a, nil
}

// decimal parses a space-padded non-negative decimal field.
func decimal(f []byte) (int64, bool) {
	f = bytes.TrimRight(f, " ")
	if len(f) == 0 || len(f) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// longName returns the GNU long name at off in the "//" table; entries end
// with "/\n" (or a bare '\n' in some writers).
func longName(tab []byte, off int64) (string, bool) {
	if off < 0 || off >= int64(len(tab)) {
		return "", false
	}
	t := tab[off:]
	end := bytes.IndexByte(t, '\n')
	if end < 0 {
		end = len(t)
	}
	s := t[:end]
	if len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	if len(s) == 0 {
		return "", false
	}
	return string(s), true
}
