// Package hugemem hands out pointer-free byte buffers carved from large
// anonymous mappings that the kernel may back with transparent huge pages.
//
// Why: on the machines warplink is measured on, the first touch of every
// 4 KiB page of fresh memory costs some 10 to 15 µs of kernel time, and a
// link touches its whole input once more than it needs to: reading 10,000
// cubins into Go-allocated buffers spent about as long in page faults as in
// the reads themselves. One 2 MiB page faults once for 512 of those.
//
// The buffers live outside the Go heap: they must hold no Go pointers, the
// collector does not scan or count them, and they stay valid until Free,
// which unmaps them all at once. Where mappings are unavailable (or when
// disabled), Alloc falls back to make.
package hugemem

import "sync"

// chunkSize is the size of one mapping; a request larger than that gets a
// mapping of its own.
const chunkSize = 64 << 20

// hugePage is the huge page size chunks are rounded to.
const hugePage = 2 << 20

// Arena is a bump allocator over mappings; safe for concurrent use. The
// zero Arena is ready to use; a nil *Arena allocates with make.
type Arena struct {
	mu     sync.Mutex
	chunks [][]byte // every mapping, for Free
	cur    []byte   // the unused tail of the newest mapping
	plain  bool     // mappings failed once: use make from then on
}

// Alloc returns n zeroed bytes (len and cap n) that stay valid until Free.
func (a *Arena) Alloc(n int) []byte {
	if n <= 0 {
		return nil
	}
	if a == nil {
		return make([]byte, n)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.plain {
		return make([]byte, n)
	}
	step := (n + 7) &^ 7 // keep every buffer 8-byte aligned
	if len(a.cur) < step {
		size := chunkSize
		if step > size {
			size = (step + hugePage - 1) &^ (hugePage - 1)
		}
		m, ok := mapAnon(size)
		if !ok {
			a.plain = true
			return make([]byte, n)
		}
		a.chunks = append(a.chunks, m)
		a.cur = m
	}
	b := a.cur[:n:n]
	a.cur = a.cur[step:]
	return b
}

// Free unmaps every buffer Alloc returned; none may be used afterwards
// (nor any string or slice aliasing one).
func (a *Arena) Free() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.chunks {
		unmap(m)
	}
	a.chunks, a.cur = nil, nil
}
