package atomicfile

import (
	"os"
	"runtime"
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

// replace renames tmp over path, which exists. It exchanges the two names
// (renameat2's RENAME_EXCHANGE) and removes tmp, which then names the old
// file: renaming over an existing file makes ext4 (auto_da_alloc) start
// writing the new file's blocks out at once, which costs a small link a
// tenth of its time, while an exchange and an unlink do not. Where the
// exchange is refused (another file system, an older kernel, an
// architecture whose call number is not listed here) it renames.
func replace(tmp, path string) error {
	nr, ok := renameat2[runtime.GOARCH]
	if !ok {
		return os.Rename(tmp, path)
	}
	from, err := syscall.BytePtrFromString(tmp)
	if err != nil {
		return err
	}
	to, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	const atFDCWD, renameExchange = -100, 2
	fdcwd := atFDCWD // (a variable: a negative constant does not convert to uintptr)
	_, _, e := syscall.Syscall6(nr, uintptr(fdcwd), uintptr(unsafe.Pointer(from)),
		uintptr(fdcwd), uintptr(unsafe.Pointer(to)), renameExchange, 0)
	if e != 0 {
		return os.Rename(tmp, path)
	}
	if err := syscall.Unlink(tmp); err != nil {
		// (The target had become something that cannot be unlinked, a
		// folder: put it back, as a rename over it would have failed.)
		syscall.Syscall6(nr, uintptr(fdcwd), uintptr(unsafe.Pointer(from)),
			uintptr(fdcwd), uintptr(unsafe.Pointer(to)), renameExchange, 0)
		return &os.LinkError{Op: "rename", Old: tmp, New: path, Err: err}
	}
	return nil
}

// renameat2 is renameat2's system call number by GOARCH.
var renameat2 = map[string]uintptr{"amd64": 316, "arm64": 276, "riscv64": 276, "loong64": 276, "386": 353, "ppc64le": 357, "s390x": 347}
