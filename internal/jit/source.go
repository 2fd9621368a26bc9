package jit

import "os"

// tempSource writes ptx to a temporary file that cleanup removes; ptxas
// opens it by name (f is nil).
func tempSource(ptx []byte) (f *os.File, name string, cleanup func(), err error) {
	t, err := os.CreateTemp("", "warplink-*.ptx")
	if err != nil {
		return nil, "", nil, err
	}
	name = t.Name()
	_, err = t.Write(ptx)
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return nil, "", nil, err
	}
	return nil, name, func() { os.Remove(name) }, nil
}
