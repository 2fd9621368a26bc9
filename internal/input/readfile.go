//go:build unix

package input

import (
	"os"
	"syscall"
)

// ReadFile reads a whole input file with few system calls and no copy:
// open, fstat, one read into a buffer of the file's size, close (os.ReadFile
// also sets the file non-blocking and reads until a zero-length read).
// Mapping the files instead was tried and rejected: a link of 100,000
// objects exhausts the process's map count (vm.max_map_count).
func ReadFile(path string) ([]byte, error) { return ReadFileInto(path, nil) }

// ReadFileInto is ReadFile with the buffer of a regular file taken from
// alloc (nil: make); alloc must return bytes of the length asked (the read
// overwrites them).
func ReadFileInto(path string, alloc func(int) []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size <= 0 || st.Size > 1<<40 {
		return os.ReadFile(path)
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
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break // the file shrank: keep what is there
		}
		n += m
	}
	return buf[:n], nil
}

// OpenFileLimit is how many files the process may have open (its soft
// RLIMIT_NOFILE; Go raises it to the hard limit at start).
func OpenFileLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 1 << 30
	}
	return int(rl.Cur)
}
