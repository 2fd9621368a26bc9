package input

import (
	"os"
	"sync"
	"syscall"
)

// scratchPool holds read buffers: most inputs (cubins, host objects) are a
// few KiB, and a link reads thousands of them.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// ReadFile reads a whole file with as few system calls as possible: open,
// one read into a pooled buffer, close (os.ReadFile also stats the file,
// sets it non-blocking and reads until a zero-length read). Files larger
// than the buffer fall back to os.ReadFile.
func ReadFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	bp := scratchPool.Get().(*[]byte)
	defer scratchPool.Put(bp)
	buf := *bp
	n, err := readFull(fd, buf)
	syscall.Close(fd)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if n == len(buf) {
		return os.ReadFile(path)
	}
	out := make([]byte, n)
	copy(out, buf[:n])
	return out, nil
}

// readFull reads until buf is full or the file ends.
func readFull(fd int, buf []byte) (int, error) {
	total := 0
	for total < len(buf) {
		n, err := syscall.Read(fd, buf[total:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return total, err
		}
		if n == 0 {
			break
		}
		total += n
		if total < len(buf) && n < 4096 {
			// A short read of a regular file is its end; skip the extra
			// zero-length read.
			break
		}
	}
	return total, nil
}
