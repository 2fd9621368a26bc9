//go:build !linux

package atomicfile

import "testing"

// sizeAndBlocks is not checked here (Reserve reserves nothing).
func sizeAndBlocks(t *testing.T, f *File) (size, blocks int64, ok bool) { return 0, 0, false }
