// Package stackgrow grows a goroutine's stack in one step to the size
// its work will reach: the main goroutine's at the start of the
// program's initialization (its init: cmd/warplink imports it for that),
// a worker's when it starts (Worker).
//
// A goroutine starts on 2 KiB and doubles its stack whenever a call
// would pass its end: each time the runtime copies the stack and walks
// its frames' tables in the pclntab, and on this kernel every 64 KiB of
// the executable's file such a walk reads is mapped whole and counts in
// the resident set; the runtime also carves a fresh 32 KiB span of stacks
// for each size on the way, touching every page of it. A one-object link
// grew the main goroutine's stack three times (internal/godebug's
// initialization, parsing the command line, write): 0.3 MB of peak RSS
// and 20 page faults. A frame larger than the stack left makes the
// runtime double the stack as often as needed in one copy; made while the
// stack is shallow, that copy walks a few frames.
//
// Its import path sorts before the standard library's internal packages
// and it imports nothing, so it is initialized before them.
package stackgrow

// mainFrame is the size of growMain's frame: with the ~1 KiB the
// runtime's own initialization has used, it makes the runtime size the
// stack at 16 KiB (more than 8 KiB can hold, less than 16 KiB).
const mainFrame = 9 << 10

// workerFrame is Worker's: a new goroutine's stack, 2 KiB, becomes
// 8 KiB, what the passes' workers reach (a read worker's decoding, a
// shard owner's map).
const workerFrame = 5 << 10

func init() { growMain(0) }

// growMain runs with a frame of mainFrame bytes.
//
//go:noinline
func growMain(i int) byte {
	var pad [mainFrame]byte
	return pad[keep(i)]
}

// Worker grows the calling goroutine's stack to 8 KiB; a goroutine that
// will call deeper than 2 KiB calls it first.
//
//go:noinline
func Worker() byte {
	var pad [workerFrame]byte
	return pad[keep(0)]
}

// keep returns i, where the compiler cannot see it: so that it keeps the
// frames' arrays.
//
//go:noinline
func keep(i int) int { return i }
