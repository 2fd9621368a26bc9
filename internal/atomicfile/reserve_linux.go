package atomicfile

import "syscall"

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: blocks are allocated past the
// end of the file without changing its size.
const fallocKeepSize = 1

// reserve allocates n bytes of f's blocks ahead (see File.Reserve).
func (f *File) reserve(n int64) error {
	for {
		err := syscall.Fallocate(int(f.Fd()), fallocKeepSize, 0, n)
		if err != syscall.EINTR {
			return err
		}
	}
}
