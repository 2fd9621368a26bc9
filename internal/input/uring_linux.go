//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package input

import (
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// The io_uring interface (include/uapi/linux/io_uring.h). The system call
// numbers are those of the common table, which these architectures use.
const (
	sysIOUringSetup = 425
	sysIOUringEnter = 426

	ioringOffSQEs          = 0x10000000
	ioringFeatSingleMmap   = 1 << 0
	ioringFeatRWCurPos     = 1 << 3 // Linux 5.6, with the OPENAT, READ and CLOSE operations
	ioringEnterGetevents   = 1 << 0
	ioringOpOpenat         = 18
	ioringOpClose          = 19
	ioringOpRead           = 22
	atFDCWD                = -100
	ringEntries            = 64 // a power of two, at least readBatch's largest batch
	ringReadCap            = 16 << 10
	ringReadOn             = -1 << 31 // File.res: read the rest with system calls
	ringOffCurrentPosition = ^uint64(0)
)

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqRingOffsets
	cqOff                                                                  cqRingOffsets
}

type sqRingOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqRingOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// uringSQE is a submission queue entry (64 bytes).
type uringSQE struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off           uint64
	addr          uint64
	len           uint32
	opFlags       uint32
	userData      uint64
	bufIndex      uint16
	personality   uint16
	fileIndex     uint32
	addr3         uint64
	_             uint64
}

// uringCQE is a completion queue entry (16 bytes).
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// Ring is an io_uring instance that reads batches of files with a few
// system calls per batch instead of four per file (open, fstat, read,
// close). On the measurement machine a system call costs about 1 µs
// before any work, and reading 10,000 small files took 62 ms on two
// cores one call at a time against 25 ms in batches of 32. A Ring is used
// by one goroutine at a time.
type Ring struct {
	fd             int
	ringMem, sqMem []byte
	sqTail, sqMask *uint32
	sqArray        []uint32
	sqes           []uringSQE
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []uringCQE
	paths          [][]byte // the batch's paths, NUL-terminated (the kernel reads them)
	probe          []byte   // one byte per file: the read that must find the end
	broken         bool     // the kernel refused a submission, or closed: not used again
	rounds         int      // run calls so far
	failAt         int      // tests: the run call that fails (0: none)
}

// brokenRings keeps every ring the kernel stopped serving, and the
// buffers its operations may still write, reachable for the life of the
// process: the kernel writes them without the collector knowing. (The
// package's one global, for a failure nothing short of exhausted kernel
// memory should cause.)
var brokenRings struct {
	mu    sync.Mutex
	rings []*Ring
	bufs  []*[]byte
}

// NewRing returns a Ring, or nil where io_uring is missing, disabled or
// refused (seccomp filters often refuse it): callers then read one file
// at a time.
func NewRing() *Ring {
	var p uringParams
	fd, _, errno := syscall.RawSyscall(sysIOUringSetup, ringEntries, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil
	}
	r := &Ring{fd: int(fd)}
	if p.features&ioringFeatSingleMmap == 0 || p.features&ioringFeatRWCurPos == 0 ||
		p.sqEntries < ringEntries || p.cqEntries < ringEntries {
		r.Close()
		return nil
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*uint32(unsafe.Sizeof(uringCQE{})))
	var err error
	if r.ringMem, err = syscall.Mmap(r.fd, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		r.Close()
		return nil
	}
	if r.sqMem, err = syscall.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(uringSQE{})), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		r.Close()
		return nil
	}
	u32 := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&r.ringMem[off])) }
	r.sqTail, r.sqMask = u32(p.sqOff.tail), u32(p.sqOff.ringMask)
	r.sqArray = unsafe.Slice(u32(p.sqOff.array), p.sqEntries)
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&r.sqMem[0])), p.sqEntries)
	r.cqHead, r.cqTail, r.cqMask = u32(p.cqOff.head), u32(p.cqOff.tail), *u32(p.cqOff.ringMask)
	r.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&r.ringMem[p.cqOff.cqes])), p.cqEntries)
	r.probe = make([]byte, ringEntries)
	return r
}

// Close releases the ring (nil: nothing).
func (r *Ring) Close() {
	if r == nil {
		return
	}
	if r.sqMem != nil {
		syscall.Munmap(r.sqMem)
	}
	if r.ringMem != nil {
		syscall.Munmap(r.ringMem)
	}
	syscall.Close(r.fd)
	r.ringMem, r.sqMem, r.sqes, r.cqes = nil, nil, nil, nil
	r.broken = true
}

// Release closes the ring unless it is broken: then it stays open, and
// reachable (see brokenRings).
func (r *Ring) Release() {
	if r == nil {
		return
	}
	if r.broken {
		brokenRings.mu.Lock()
		brokenRings.rings = append(brokenRings.rings, r)
		brokenRings.mu.Unlock()
		return
	}
	r.Close()
}

// run submits one operation per index in ks (fill writes it) and waits for
// all of them; done receives each index and its result (a count, a file
// descriptor, or -errno). It reports false if the kernel refused to go on
// (the ring is then unusable: see fail).
func (r *Ring) run(ks []int, fill func(k int, e *uringSQE), done func(k int, res int32)) bool {
	if len(ks) == 0 {
		return true
	}
	r.rounds++
	if r.rounds == r.failAt {
		return false
	}
	tail := atomic.LoadUint32(r.sqTail)
	mask := *r.sqMask
	for j, k := range ks {
		i := (tail + uint32(j)) & mask
		e := &r.sqes[i]
		*e = uringSQE{userData: uint64(k)}
		fill(k, e)
		r.sqArray[i] = i
	}
	atomic.StoreUint32(r.sqTail, tail+uint32(len(ks))) // publishes the entries
	submit, got := len(ks), 0
	for got < len(ks) {
		var n uintptr
		var errno syscall.Errno
		if submit > 0 {
			// Submitting does not wait: the kernel completes inline what
			// needs no waiting (reads from the page cache, path lookups
			// in the dentry cache, closes) and hands the rest to its own
			// workers. So it is a raw system call: the runtime does not
			// count this goroutine as blocked and hand its P to another
			// thread meanwhile (a thread wake-up and more work for sysmon,
			// at every round). Only waiting for what the kernel handed on
			// is a blocking call.
			n, _, errno = syscall.RawSyscall6(sysIOUringEnter, uintptr(r.fd), uintptr(submit), 0, 0, 0, 0)
		} else {
			n, _, errno = syscall.Syscall6(sysIOUringEnter, uintptr(r.fd), 0, uintptr(len(ks)-got), ioringEnterGetevents, 0, 0)
		}
		if errno != 0 && errno != syscall.EINTR {
			return false
		}
		if errno == 0 {
			submit -= min(int(n), submit)
		}
		head, t := atomic.LoadUint32(r.cqHead), atomic.LoadUint32(r.cqTail)
		for ; head != t; head++ {
			c := &r.cqes[head&r.cqMask]
			done(int(c.userData), c.res)
			got++
		}
		atomic.StoreUint32(r.cqHead, head)
	}
	return true
}

// readBatch reads files[k].Path for every k into a buffer from get, in
// rounds of one system call each: open every file, read each into its
// buffer, read once more to find the end (a short read alone does not show
// it: the file may be a pipe), close. A file longer than its buffer is
// read on with system calls, through the descriptor already open, or
// mapped when it is a regular file of at least mapFrom bytes (File.mapped;
// 0: never). Each
// file gets Data or Err, as ReadFileInto would give them. It reports false
// if the ring failed (see fail); the caller then reads the files itself.
func (r *Ring) readBatch(files []File, get func() *[]byte, mapFrom int64) bool {
	if r.broken || len(files) > ringEntries {
		return false
	}
	for len(r.paths) < len(files) {
		r.paths = append(r.paths, nil)
	}
	var open []int
	for k := range files {
		f := &files[k]
		f.fd, f.res = -1, 0
		if !validPath(f.Path) {
			f.Err = syscall.EINVAL
			continue
		}
		r.paths[k] = append(append(r.paths[k][:0], f.Path...), 0)
		open = append(open, k)
	}
	if !r.run(open, func(k int, e *uringSQE) {
		e.opcode, e.fd = ioringOpOpenat, atFDCWD
		e.addr = uint64(uintptr(unsafe.Pointer(&r.paths[k][0])))
		e.opFlags = syscall.O_RDONLY | syscall.O_CLOEXEC
	}, func(k int, res int32) {
		if res < 0 {
			files[k].Err = syscall.Errno(-res)
		} else {
			files[k].fd = int(res)
		}
	}) {
		return r.fail(files)
	}
	var reading []int
	for k := range files {
		if f := &files[k]; f.fd >= 0 {
			f.buf = get()
			if cap(*f.buf) < ringReadCap {
				*f.buf = make([]byte, ringReadCap)
			}
			f.Data = (*f.buf)[:cap(*f.buf)]
			reading = append(reading, k)
		}
	}
	// Both reads are at the file position (offset -1): the second goes on
	// where the first stopped, in pipes too.
	if !r.run(reading, func(k int, e *uringSQE) {
		e.opcode, e.fd, e.off = ioringOpRead, int32(files[k].fd), ringOffCurrentPosition
		e.addr = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(files[k].Data))))
		e.len = uint32(min(len(files[k].Data), 1<<30)) // (a shorter read goes on below)
	}, func(k int, res int32) { files[k].res = res }) {
		return r.fail(files)
	}
	var probing []int
	for _, k := range reading {
		if f := &files[k]; f.res >= 0 {
			full := int(f.res) == len(f.Data)
			f.Data = f.Data[:f.res]
			if full {
				f.res = ringReadOn // longer than the buffer
			} else {
				probing = append(probing, k)
			}
		}
	}
	if !r.run(probing, func(k int, e *uringSQE) {
		e.opcode, e.fd, e.off = ioringOpRead, int32(files[k].fd), ringOffCurrentPosition
		e.addr = uint64(uintptr(unsafe.Pointer(&r.probe[k])))
		e.len = 1
	}, func(k int, res int32) {
		f := &files[k]
		if res > 0 { // not the end
			f.Data = append(f.Data, r.probe[k])
			f.res = ringReadOn
		} else if res < 0 {
			f.res = res
		}
	}) {
		return r.fail(files)
	}
	for _, k := range reading {
		f := &files[k]
		switch {
		case f.res == ringReadOn:
			f.Data, f.mapped, f.Err = readRest(f.fd, f.buf, f.Data, mapFrom)
		case f.res < 0:
			f.Data, f.Err = nil, syscall.Errno(-f.res)
		}
	}
	if !r.run(reading, func(k int, e *uringSQE) {
		e.opcode, e.fd = ioringOpClose, int32(files[k].fd)
	}, func(k int, res int32) {
		if res < 0 && res != -int32(syscall.EBADF) {
			syscall.Close(files[k].fd) // (the operation failed: still ours)
		}
		files[k].fd = -1
	}) {
		// The contents are complete, but closes may have been made: a
		// descriptor still listed may already be another file's, so
		// none is closed again (they leak with the ring).
		r.broken = true
	}
	for k := range files {
		files[k].fd = -1
	}
	return true
}

// fail gives up on the ring after the kernel refused a submission, which
// nothing short of exhausted kernel memory should cause. Operations of the
// batch may still be under way: the buffers they write stay reachable and
// are never reused (brokenRings), and the descriptors they opened leak. It
// resets files so that the caller reads them afresh (a pipe the ring has
// read from then misses those bytes), and returns false.
func (r *Ring) fail(files []File) bool {
	r.broken = true
	brokenRings.mu.Lock()
	defer brokenRings.mu.Unlock()
	for k := range files {
		f := &files[k]
		if f.buf != nil {
			brokenRings.bufs = append(brokenRings.bufs, f.buf)
		}
		*f = File{Path: f.Path, fd: -1}
	}
	return false
}

// readRest reads the rest of open file fd, whose first bytes, have, are
// at the start of *buf, and returns the whole contents (in *buf, grown as
// needed), or maps a regular file of at least mapFrom bytes (0: none) and
// returns the mapping as mapped too (see mapFile).
func readRest(fd int, buf *[]byte, have []byte, mapFrom int64) (data, mapped []byte, err error) {
	data = have
	grow := func(n int) {
		grown := make([]byte, len(data), n)
		copy(grown, data)
		data, *buf = grown, grown[:n]
	}
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Size < 1<<40 {
		if m, ok := mapFile(fd, st.Size, mapFrom); ok {
			return m, m, nil // (have is the start of it: no longer needed)
		}
		if int(st.Size) >= cap(data) {
			grow(int(st.Size) + 1) // +1: the end shows as a read of nothing
		}
	}
	for {
		if len(data) == cap(data) {
			grow(2 * cap(data))
		}
		m, err := syscall.Read(fd, data[len(data):cap(data)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if m == 0 {
			return data, nil, nil
		}
		data = data[:len(data)+m]
	}
}

// validPath reports whether path can be passed to the kernel (no NUL).
func validPath(path string) bool {
	return path != "" && strings.IndexByte(path, 0) < 0
}
