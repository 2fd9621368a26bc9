// Package imagetrim gives back, once the program's initialization has
// run, the mappings of the executable's pages that only its start reads:
// the pclntab, the runtime's tables of every function (names, files,
// lines, frame sizes, stack maps). cmd/warplink imports it for its init.
//
// The runtime reads the pclntab when it walks a stack: to grow or copy
// one, to scan one in a collection, for a traceback, for runtime.Callers;
// and at start, where it checks the order of the whole function table.
// On Linux the executable's pages are mapped a block at a time (64 KiB:
// fault-around, and on Linux 6.18 a file cached in large folios is mapped
// a folio at a time), and each block a process maps counts in its
// resident set: the start's reads (the table check, internal/stackgrow's
// stack copy, the runtime's own initialization) leave 11 to 13 blocks of
// the pclntab mapped, 0.7-0.8 MB, a fifth of a one-object link's peak
// RSS, though a light link walks no stack after its start (one on the
// main goroutine alone grows no stack past stackgrow's). Its init drops
// those mappings (madvise MADV_DONTNEED: the pages are the file's, read
// only, never written; they stay in the page cache): a later walk maps
// back the blocks it reads, at a minor page fault each. Release drops
// them again after such work (cmd/warplink: a light link's read pass,
// whose workers' start and stack growth read the tables).
//
// It imports os and syscall, so it is initialized right after os (its
// import path sorts before most of the standard library's), whose finalizer
// goroutine's start reads the tables, and before the rest of the
// program's initialization maps most of its code: the kernel records the
// peak as it drops the mappings, and the resident set is still well
// below a link's then.
package imagetrim
