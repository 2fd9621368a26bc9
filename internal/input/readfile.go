//go:build unix

package input

import (
	"os"
	"syscall"
)

// ReadFile reads a whole input file with few system calls and no copy:
// open, fstat, one read into a buffer of the file's size, close (os.ReadFile
// also sets the file non-blocking and reads until a zero-length read).
// Mapping every file instead was tried and rejected: a link of 100,000
// objects exhausts the process's map count (vm.max_map_count); only large
// files are mapped, and only for as long as they are being loaded
// (Memory.MapFrom).
func ReadFile(path string) ([]byte, error) { return ReadFileInto(path, nil) }

// ReadFileInto is ReadFile with the buffer of a regular file taken from
// alloc (nil: make); alloc must return bytes of the length asked (the read
// overwrites them).
func ReadFileInto(path string, alloc func(int) []byte) ([]byte, error) {
	data, _, err := readFileInto(path, alloc, 0)
	return data, err
}

// readFileInto is ReadFileInto that maps a regular file of at least
// mapFrom bytes instead (0: none), returning the mapping as mapped too:
// the caller unmaps it (unmapFile) once nothing points into it.
func readFileInto(path string, alloc func(int) []byte, mapFrom int64) (data, mapped []byte, err error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size <= 0 || st.Size > 1<<40 {
		// Not a regular file of a size to trust (a pipe, a device): the
		// descriptor open here is read to its end. Opening the path again
		// would wait for a new writer of a named pipe whose writer may
		// have written everything and gone.
		data, err := readToEnd(fd)
		if err != nil {
			return nil, nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		return data, nil, nil
	}
	if m, ok := mapFile(fd, st.Size, mapFrom); ok {
		return m, m, nil
	}
	var buf []byte
	if alloc != nil {
		buf = alloc(int(st.Size))
	} else {
		buf = make([]byte, st.Size)
	}
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break // the file shrank: keep what is there
		}
		n += m
	}
	return buf[:n], nil, nil
}

// readToEnd reads fd until a read returns nothing.
func readToEnd(fd int) ([]byte, error) {
	data := make([]byte, 0, 512)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // (room to grow)
		}
		m, err := syscall.Read(fd, data[len(data):cap(data)])
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return nil, err
		case m == 0:
			return data, nil
		default:
			data = data[:len(data)+m]
		}
	}
}

// mapFile maps the regular file open as fd, of size bytes, if size is at
// least mapFrom (0: never). The mapping is private and writable: a write
// changes this process's copy of a page, never the file. Its pages are
// the page cache's own, so a large input costs neither the zeroing of a
// buffer nor the copy of a read (an archive of 10,000 host objects, 50
// MB: 11-26 ms less CPU per link, about 4-8 % of it). A file that
// another process truncates while it is mapped faults on access (lld and
// mold, which map their inputs, crash then): what reads a mapping runs
// under Guard, which makes that nvlink's diagnostic for an unreadable
// input.
func mapFile(fd int, size, mapFrom int64) ([]byte, bool) {
	if mapFrom <= 0 || size < mapFrom || int64(int(size)) != size {
		return nil, false
	}
	m, err := syscall.Mmap(fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false // (read instead)
	}
	return m, true
}

// unmapFile unmaps what mapFile mapped.
func unmapFile(m []byte) { _ = syscall.Munmap(m) }

// mapsFiles reports whether readFileInto and readRest map large files here.
const mapsFiles = true

// OpenFileLimit is how many files the process may have open (its soft
// RLIMIT_NOFILE; Go raises it to the hard limit at start).
func OpenFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 1 << 30
	}
	return int(rl.Cur)
}
