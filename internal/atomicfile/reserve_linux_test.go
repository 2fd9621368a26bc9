package atomicfile

import (
	"syscall"
	"testing"
)

// sizeAndBlocks is f's size and the bytes of blocks it has (st_blocks).
func sizeAndBlocks(t *testing.T, f *File) (size, blocks int64, ok bool) {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return st.Size, st.Blocks * 512, true
}
