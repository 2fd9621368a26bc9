package input

import "runtime/debug"

// FaultError is what Guard returns when the memory of a mapped input
// faulted: the file shrank while it was mapped (another process rewrote it
// in place during the link). It reads as nvlink's diagnostic for an input
// it cannot read.
type FaultError struct{ Path string }

func (e *FaultError) Error() string { return "Could not open input file '" + e.Path + "'" }

// Guard runs fn, which reads the memory of the file at path; when mapped
// (see Mapped), a fault in that memory ends fn with a *FaultError instead
// of ending the process, as the bytes past a file's new end do when it is
// truncated while mapped. Guard must run on the goroutine that touches the
// memory: the setting it makes is that goroutine's. Other panics go on.
func Guard(path string, mapped bool, fn func() error) (err error) {
	if !mapped {
		return fn()
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = &FaultError{path}
		}
	}()
	return fn()
}

// Mapped reports whether units, which LoadFile returned for one file,
// still point into that file's mapping (until Memory.Release): what reads
// their dropped sections then needs Guard.
func Mapped(units []Unit) bool { return len(units) > 0 && units[0].mapped != nil }
