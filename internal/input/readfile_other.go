//go:build !unix

package input

import (
	"io"
	"os"
)

// ReadFile reads a whole input file (os.ReadFile; see the unix version).
func ReadFile(path string) ([]byte, error) { return ReadFileInto(path, nil) }

// ReadFileInto is ReadFile with the buffer taken from alloc (nil: make);
// alloc must return bytes of the length asked (the read overwrites them).
func ReadFileInto(path string, alloc func(int) []byte) ([]byte, error) {
	if alloc == nil {
		return os.ReadFile(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || st.Size() > 1<<40 {
		return os.ReadFile(path)
	}
	buf := alloc(int(st.Size()))
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return buf[:n], nil // (a file that shrank: what is there)
}

// OpenFileLimit is how many files the process may have open: no limit
// known here.
func OpenFileLimit() int { return 1 << 30 }
