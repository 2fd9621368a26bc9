//go:build !unix

package input

import (
	"io"
	"os"
)

// ReadFile reads a whole input file (os.ReadFile; see the unix version).
func ReadFile(path string) ([]byte, error) { return ReadFileInto(path, nil) }

// readFileInto is ReadFileInto; files are never mapped here (mapped is
// always nil).
func readFileInto(path string, alloc func(int) []byte, _ int64) (data, mapped []byte, err error) {
	data, err = ReadFileInto(path, alloc)
	return data, nil, err
}

// unmapFile is never called here: nothing is mapped.
func unmapFile([]byte) {}

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

// mapsFiles reports whether readFileInto and readRest map large files here.
const mapsFiles = false

// OpenFileLimit is how many files the process may have open: no limit
// known here.
func OpenFileLimit() int { return 1 << 30 }
