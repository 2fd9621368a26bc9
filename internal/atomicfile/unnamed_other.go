//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

var errNoUnnamed = errors.New("unnamed files are not supported here")

// openUnnamed fails: unnamed files (O_TMPFILE) are Linux's.
func openUnnamed(dir, name string) (*os.File, error) { return nil, errNoUnnamed }

// linkUnnamed fails: see openUnnamed.
func linkUnnamed(f *os.File, path string) error { return errNoUnnamed }

// replace renames tmp over path.
func replace(tmp, path string) error { return os.Rename(tmp, path) }
