//go:build !linux

package atomicfile

import "errors"

// reserve does nothing here (see File.Reserve).
func (f *File) reserve(n int64) error { return errors.ErrUnsupported }
