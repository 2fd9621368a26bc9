package merge

// Obj.SymMap's entries and Obj's placeholder, read and written through
// named accessors rather than by their encodings.
//
// A SymMap entry is one of:
//   - an output symbol ID (>= 0);
//   - noOutSym (-1): the input symbol has no output record;
//   - local data of output section sec, stored as -2 - sec (<= -2): a
//     local data symbol nvlink writes no symbol for; references to it
//     resolve to its offset in sec (relocValue), and layout places the
//     shared-memory ones (layoutShared).

// noOutSym is the SymMap entry of an input symbol without output record.
const noOutSym = -1

// setLocalData marks input symbol i of o as data local to output section
// sec.
func (o *Obj) setLocalData(i int, sec int32) { o.SymMap[i] = -2 - sec }

// localDataSec is the output section input symbol i of o is local data
// of; ok is false when SymMap holds an output symbol or none.
func (o *Obj) localDataSec(i uint32) (sec int32, ok bool) {
	return localDataOf(o.SymMap[i])
}

// localDataOf is localDataSec of a symbol map entry m.
func localDataOf(m int32) (sec int32, ok bool) {
	if m <= -2 {
		return -2 - m, true
	}
	return 0, false
}

// outSymOf is the output symbol ID input symbol i of o maps to; ok is
// false when it has none (no record, or local data).
func (o *Obj) outSymOf(i uint32) (id int32, ok bool) {
	if m := o.SymMap[i]; m >= 0 {
		return m, true
	}
	return noOutSym, false
}

// placeholderSym is the output symbol ID of the nameless function symbol
// o made under --preserve-relocs or -g (see mergeGlobal); ok is false
// when it made none. (Obj.placeholder holds the ID plus one, so that the
// zero value means none.)
func (o *Obj) placeholderSym() (id int32, ok bool) {
	return o.placeholder - 1, o.placeholder > 0
}

// setPlaceholderSym records id as o's placeholder function symbol.
func (o *Obj) setPlaceholderSym(id int32) { o.placeholder = id + 1 }

// hasPlaceholder reports whether o made its placeholder function symbol.
func (o *Obj) hasPlaceholder() bool { return o.placeholder > 0 }
