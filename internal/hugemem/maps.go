package hugemem

import (
	"bytes"
	"strconv"
)

// heapMappingBelow finds, in the text of /proc/self/maps, the mapping that
// ends exactly at lo, and returns its start when it is private anonymous
// read-write memory, as the Go heap's is: unnamed, or named by the runtime
// "[anon: Go: heap]" (Go 1.25 on, where the kernel names mappings). A
// file, another name such as [stack], or other permissions: not ok.
func heapMappingBelow(maps []byte, lo uintptr) (start uintptr, ok bool) {
	for line := range bytes.Lines(maps) {
		// start-end perms offset dev inode [path]
		f := bytes.Fields(line)
		if len(f) < 5 {
			continue
		}
		s, e, found := bytes.Cut(f[0], []byte{'-'})
		if !found {
			continue
		}
		a, errA := strconv.ParseUint(string(s), 16, 64)
		b, errB := strconv.ParseUint(string(e), 16, 64)
		if errA != nil || errB != nil || b != uint64(lo) {
			continue
		}
		name := bytes.Join(f[5:], []byte{' '})
		if string(f[1]) != "rw-p" || string(f[4]) != "0" || a >= b ||
			len(name) > 0 && string(name) != "[anon: Go: heap]" {
			return 0, false
		}
		return uintptr(a), true
	}
	return 0, false
}
