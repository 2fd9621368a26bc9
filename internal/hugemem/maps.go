package hugemem

import "bytes"

// heapMappingBelow finds, in the text of /proc/self/maps, the mapping that
// ends exactly at lo, and returns its start when it is private anonymous
// read-write memory, as the Go heap's is: unnamed, or named by the runtime
// "[anon: Go: heap]" (Go 1.25 on, where the kernel names mappings). A
// file, another name such as [stack], or other permissions: not ok.
func heapMappingBelow(maps []byte, lo uintptr) (start uintptr, ok bool) {
	for len(maps) > 0 {
		line := maps
		if i := bytes.IndexByte(maps, '\n'); i >= 0 {
			line, maps = maps[:i], maps[i+1:]
		} else {
			maps = nil
		}
		// start-end perms offset dev inode [path]
		f := bytes.Fields(line)
		if len(f) < 5 {
			continue
		}
		s, rest, found := bytes.Cut(f[0], []byte{'-'})
		if !found {
			continue
		}
		a, okA := parseHex(s)
		e, okE := parseHex(rest)
		if !okA || !okE || e != lo {
			continue
		}
		if string(f[1]) != "rw-p" || string(f[4]) != "0" || a >= e {
			return 0, false
		}
		if name := bytes.Join(f[5:], []byte{' '}); len(name) > 0 && string(name) != "[anon: Go: heap]" {
			return 0, false
		}
		return a, true
	}
	return 0, false
}

// parseHex parses a nonempty hexadecimal number that fits a uintptr.
func parseHex(b []byte) (uintptr, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(c)
	}
	if uint64(uintptr(v)) != v {
		return 0, false
	}
	return uintptr(v), true
}
