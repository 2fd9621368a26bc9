//go:build !(linux && (amd64 || arm64 || riscv64 || loong64))

package input

// Ring batches file reads where the system allows (see the Linux version);
// here there is none.
type Ring struct{}

// NewRing returns nil: callers read one file at a time.
func NewRing() *Ring { return nil }

// Close does nothing.
func (r *Ring) Close() {}

// Release does nothing.
func (r *Ring) Release() {}

func (r *Ring) readBatch(files []File, get func() *[]byte, mapFrom int64) bool { return false }
