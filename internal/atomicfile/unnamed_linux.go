package atomicfile

import (
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// oTmpfile is O_TMPFILE (not in package syscall): __O_TMPFILE, 0x400000 on
// every architecture Go runs Linux on, with O_DIRECTORY. A kernel that
// predates it sees a directory opened for writing and fails (EISDIR).
const oTmpfile = 0x400000 | syscall.O_DIRECTORY

// openUnnamed opens an unnamed regular file in dir for reading and
// writing, with permissions 0666 less the umask, as a named one would
// get; name is what errors call it.
func openUnnamed(dir, name string) (*os.File, error) {
	fd, err := syscall.Open(dir, syscall.O_RDWR|syscall.O_CLOEXEC|oTmpfile, 0o666)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// linkUnnamed gives f, opened by openUnnamed, the name path; it fails
// (fs.ErrExist) if path exists. It links the file's /proc/self/fd entry,
// which needs no privilege (AT_EMPTY_PATH would).
func linkUnnamed(f *os.File, path string) error {
	from, err := syscall.BytePtrFromString("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return err
	}
	to, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	const atFDCWD, atSymlinkFollow = -100, 0x400
	fdcwd := atFDCWD // (a variable: a negative constant does not convert to uintptr)
	_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(fdcwd), uintptr(unsafe.Pointer(from)),
		uintptr(fdcwd), uintptr(unsafe.Pointer(to)), atSymlinkFollow, 0)
	if e != 0 {
		return &os.LinkError{Op: "link", Old: f.Name(), New: path, Err: e}
	}
	return nil
}
