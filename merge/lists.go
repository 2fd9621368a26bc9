package merge

import "github.com/warplink/warplink/elf"

// lists are values grouped by key 0..n-1 in one array: key k's are
// all[start[k]:start[k+1]], in the order they were put (call lists by
// caller, the inputs' call edges by caller). One array and one of starts, where a slice per key would cost 24
// bytes a key and an allocation each, late in a link, where the heap is
// at its limit. They are built in two passes over the values: count, then
// put.
type lists[T any] struct {
	start []int32 // n+1
	all   []T
	alloc elf.Alloc // where all comes from (nil: make)
}

// newLists returns empty lists for n keys, ready to count.
func newLists[T any](n int) lists[T] { return newListsIn[T](n, nil) }

// newListsIn is newLists with its memory from alloc (nil: make); T must
// hold no pointers.
func newListsIn[T any](n int, alloc elf.Alloc) lists[T] {
	return lists[T]{start: elf.SliceOf[int32](n+1, alloc), alloc: alloc}
}

// count notes one more value for key k (first pass).
func (l *lists[T]) count(k int32) { l.start[k+1]++ }

// countN notes n more values for key k (first pass).
func (l *lists[T]) countN(k int32, n int) { l.start[k+1] += int32(n) }

// counted reports whether key k has a value yet (first pass).
func (l *lists[T]) counted(k int32) bool { return l.start[k+1] != 0 }

// place ends the first pass: every key gets its range.
func (l *lists[T]) place() {
	for i := 1; i < len(l.start); i++ {
		l.start[i] += l.start[i-1]
	}
	l.all = elf.SliceOf[T](int(l.start[len(l.start)-1]), l.alloc)
}

// put appends v to key k's list (second pass: each key's start moves to
// its end meanwhile).
func (l *lists[T]) put(k int32, v T) {
	l.all[l.start[k]] = v
	l.start[k]++
}

// done ends the second pass: the starts move back.
func (l *lists[T]) done() {
	copy(l.start[1:], l.start[:len(l.start)-1])
	l.start[0] = 0
}

// of is key k's list (none for a key beyond them, as a section or symbol
// made after the grouping).
func (l lists[T]) of(k int32) []T {
	if k < 0 || int(k)+1 >= len(l.start) {
		return nil
	}
	return l.all[l.start[k]:l.start[k+1]:l.start[k+1]]
}
