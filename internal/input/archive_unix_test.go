//go:build linux || darwin

package input

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/ar"
	"github.com/warplink/warplink/internal/diag"
)

// TestArchiveParallelFault makes a page of every member's contents fault
// (mprotect: a stand-in for a mapped file cut short under the members'
// goroutines, which the archive's own parse would otherwise meet first)
// and requires the expansion on several goroutines to end with a
// *FaultError, not the process.
func TestArchiveParallelFault(t *testing.T) {
	if !mapsFiles {
		t.Skip("files are not mapped here")
	}
	_, archive := hostArchive(t, "debug/a.cubin")
	page := os.Getpagesize()
	m, err := syscall.Mmap(-1, 0, len(archive)+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	data := m[:len(archive)]
	copy(data, archive)
	a, err := ar.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// A whole page inside every member's contents: whichever goroutine
	// takes a member meets a fault (the calling one and the others:
	// actors.ParallelFor's caller is one of its workers).
	for _, mem := range a.Members {
		start := int(mem.Offset) + 60
		lo := (start + page - 1) / page * page
		if lo+page > start+len(mem.Data) {
			t.Fatalf("member of %d bytes holds no whole page", len(mem.Data))
		}
		if err := syscall.Mprotect(m[lo:lo+page], syscall.PROT_NONE); err != nil {
			t.Fatal(err)
		}
	}
	// (With keep, every section's bytes are copied: the page is read.)
	x := &expander{arch: 90, diags: &diag.Bag{}, file: 0, workers: 4, mapped: true,
		keep: func(n int) []byte { return make([]byte, n) }, drop: func(*elf.Section) bool { return false }}
	var units []Unit
	err = Guard("lib.a", true, func() (err error) {
		units, err = x.expand("lib.a", data)
		return err
	})
	var fe *FaultError
	if !errors.As(err, &fe) || fe.Path != "lib.a" || units != nil {
		t.Fatalf("%d units, error %v; want a FaultError", len(units), err)
	}
}
