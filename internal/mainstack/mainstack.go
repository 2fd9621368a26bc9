// Package mainstack grows the main goroutine's stack to 16 KiB in one
// step, at the start of the program's initialization: imported for its
// init alone, by cmd/warplink.
//
// A goroutine starts on 2 KiB and doubles its stack whenever a call
// would pass its end; a one-object link grew the main goroutine's three
// times (in internal/godebug's initialization, parsing the command line,
// and write), each time copying the stack and walking its frames'
// tables in the pclntab, and the runtime carved a fresh 32 KiB span of
// stacks for each size on the way (4 and 8 KiB), touching every page of
// it. A frame larger than the stack left makes the runtime double it as
// often as needed in one copy; made while the stack is shallow, that
// copy walks a few frames. Its import path sorts before the standard
// library's internal packages, and it imports nothing, so it is
// initialized before them.
package mainstack

// frame is the size of grow's frame: with the ~1 KiB the runtime's own
// initialization has used, it makes the runtime size the stack at
// 16 KiB (more than 8 KiB can hold, less than 16 KiB).
const frame = 9 << 10

func init() { grow(0) }

// grow runs with a frame of frame bytes.
//
//go:noinline
func grow(i int) byte {
	var pad [frame]byte
	return keep(&pad, i)
}

// keep reads one byte of pad, so that the compiler keeps grow's frame.
//
//go:noinline
func keep(pad *[frame]byte, i int) byte { return pad[i] }
