// Package merge is the device linker: one Context passed through the passes
// read, resolve, merge, layout, relocate, finalize and write (link.go lists
// them in order). Each pass lives in the file of its name and opens with its
// inputs, outputs and invariants.
//
// Identity: every input object gets a dense file ID (its position in the
// expanded command line) before any goroutine starts; every per-file result
// is stored at that index, never in completion order, so the output does not
// depend on scheduling.
package merge

import (
	"io"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/diag"
	"github.com/warplink/warplink/internal/hugemem"
)

// Context is the state of one link, passed to every pass.
type Context struct {
	Opts  *Options
	Diags *diag.Bag
	Prog  string // name diagnostics are printed under
	// Rel is the nvlink release the link behaves as (release.go): chosen
	// once, at the end of read; the passes after ask it.
	Rel Release
	// keep is what -g and --preserve-relocs keep (nvlinkrules.go):
	// computed from the options and Rel (setKeepPolicy); the passes ask
	// it, never Opts.Debug or Opts.PreserveRelocs.
	keep keepPolicy
	// inOrder: where sections and local symbols come from, under
	// Release.InputOrder (release130.go); nil otherwise.
	inOrder *inputOrder

	// Objs are the objects by file ID; read's list is pointer-free memory
	// with pointer-free slabs (objKeep holds what it points to), so that
	// nothing but numberObjects appends a new object within its capacity.
	Objs []*Obj

	// Output under construction.
	// Secs and Syms are in creation order, indexed by OutSec.ID and
	// OutSym.ID. The link grows them in pointer-free memory (appendRecord,
	// growRecords), so they hold only records of recordSlab or secChunks
	// (a test's typed slice may hold any).
	Secs []*OutSec
	Syms []*OutSym
	// Locals and Globals are nvlink's positive and negative symbol arrays:
	// symbol IDs in the order they were created.
	Locals  []int32
	Globals []int32

	secNames secNames // output sections by name (made by merge and layout)
	// secNamesDone: layout is over, and newSection no longer enters the
	// sections it makes in secNames (relocation sections, the generated
	// .nv.info ones, which nothing looks up by name: 2 ms of table
	// insertions at 10,000 objects).
	secNamesDone bool
	// lateShared: the .nv.shared.<k> sections layout made (lateSharedSection).
	lateShared []int32
	// bankSecs, sharedSecs, moduleSharedSecs and funcBankSecs are the
	// output sections layout looks for by name, noted as they are made
	// (noteSecName): module-scope constant banks (.nv.constantN),
	// entries' .nv.shared.<k>, the module's .nv_debug.shared, and the
	// function and kernel banks (.nv.constant2.<f>); dropped at layout's
	// end.
	bankSecs, sharedSecs, moduleSharedSecs, funcBankSecs []int32

	// Strings of .shstrtab and .strtab, in the order nvlink adds them.
	ShStr *StrTab
	Str   *StrTab

	// Resolution results: one per global name (Obj.resID names an
	// entry's), resNames of them; the shards' records interleave, so the
	// slots past each shard's last record are unused (collectResolutions:
	// about (largest shard - mean) x shards; names crafted into one shard
	// would leave most of the array unused).
	Res      []Resolution
	resNames int

	// Layout results.
	Order  []int32 // output section IDs in final index order (index 0 = null is implicit)
	Header elf.Header
	Out    []byte
	// secIndex: by output section ID, its final index in the section
	// header table (0: not written); set by order (orderSections), kept
	// apart from OutSec, as nothing before order reads it.
	secIndex []int32
	// symIndex: by output symbol ID, its .symtab index (OutSym.Index),
	// set by order (indexSymbols) for the passes that look indices up by
	// ID (the .nv.info records, the call graph, relocations, section
	// headers): 4 bytes a symbol, which stay in the caches where the
	// symbols' records (64 bytes, scattered) missed them on every
	// lookup. symIndexOf reads it.
	symIndex []int32

	Timer *Timer

	// mem holds the bytes of the input files and other pointer-free data
	// (on the Go heap when it is nil or has no mappings); freed when Link
	// returns, so nothing aliasing an input may outlive the link.
	mem *hugemem.Arena
	// tables holds what nothing reads once finalize has collected the
	// call graph: the inputs' symbol tables, decoded relocations and
	// .nv.info records. finalize frees it then (releaseTables), so that
	// the rest of finalize and write do not come on top.
	tables *hugemem.Arena
	// names holds the inputs' string tables (.strtab, .shstrtab), which
	// nothing reads once merge has copied the names into the output's
	// (releaseNames frees it then); nil for a link of small pages, whose
	// names stay in mem.
	names *hugemem.Arena
	// late is tables once releaseTables has reset it for reuse by what
	// finalize and write allocate after (lateAlloc); nil before, or when
	// the tables were freed or kept.
	late *hugemem.Arena
	// freeTablesBelow is releaseTablesBelow (a test lowers it to reach
	// the reset).
	freeTablesBelow int

	// openOutput opens where the write pass streams the file, size bytes
	// (nil: into Out).
	openOutput func(size uint64) (io.Writer, error)
	// prepareOutput has the output opened and its pages prepared ahead
	// for sections of size bytes (nil: not; output.go).
	prepareOutput func(size uint64)
	// preparedRuns hands write the run buffers the preparation made (nil
	// or none: emit makes its own).
	preparedRuns func() [][]byte

	cgEdges      []cgEdge     // call edges (caller, callee) in file order
	calls        lists[int32] // by caller symbol ID: its callees in edge order (finalize)
	callers      []int32      // callers in order of their first edge
	callersOf    lists[int32] // by callee symbol ID: its callers in edge order (raiseCallers)
	addressTaken []int32      // address-taken functions (block -2), in file order (finalize)
	// dceRoot: by symbol ID, the roots of dead code elimination under
	// --kernels-used or --variables-used (nil without them, or under -g:
	// every kernel); only they get EIATTR_MIN_STACK_SIZE.
	dceRoot []bool
	// rootKernel: the only kernel the link uses (every kernel, or those
	// --kernels-used names), -1 when it uses none or several: nvlink's
	// root kernel, whose EXTERNS closeExterns builds otherwise.
	rootKernel int32
	// hostKernels: the kernels the host objects' code references, when
	// the link uses that to remove the others (read; hostinfo.go).
	hostKernels *hostKernelSet
	// hostInfoMissing: an input but libcudadevrt's has no host reference
	// information: a cubin or fatbinary, a host object without it (one
	// without device code too) (read).
	hostInfoMissing bool
	// totals: the objects' sections, symbols, global symbols and string
	// tables, summed by read's workers, for resolve's and merge's sizes
	// (nil: there was no read; Context.objTotals).
	totals *objTotals
	// nullSymValue: st_value of the null symbol (lastSingleConstant).
	nullSymValue  uint64
	cg            cgReport           // what --dump-callgraph prints besides the graph
	infoOrder     []int32            // code sections in the order nvlink creates their .nv.info.<f>
	infoReport    []byte             // under -v: .nv.info's records in compact form, for reportProperties
	infoSeen      []bool             // by code section ID: in infoOrder (see infoNoted)
	dataVal       map[dataKey]uint64 // laid-out offsets of section-local data
	callees       lists[int32]       // function symbol ID -> its callees in the inputs' call graphs (dce)
	externOff     map[int32]uint64   // code section -> offset of extern __shared__ memory (layout)
	bound         *boundRefs         // bound texture and surface references' slots (layoutBoundRefs; nil: none)
	hasExtern     bool               // some input references extern __shared__ memory
	hasCommon     bool               // some output symbol was made SHN_COMMON (allocateCommons)
	externSyms    []int32            // under -g: the output symbols of extern __shared__ arrays, in .nv_debug.shared
	externSymOff  map[int32]uint64   // under -g: the offset the code reads for each of them (layout)
	hasBoundRefs  bool               // some input refers to a bound texture or surface reference (merge)
	directEdges   int                // cgEdges[:directEdges] came from the inputs' call lists
	fixed         int                // sections before the first merged one: null, .shstrtab, .strtab, .symtab[, .symtab_shndx]
	emptyProto    uint32             // .strtab offset of nvlink's empty prototype string (0: none)
	protoNames    map[string]bool    // the inputs' prototype strings, under Release.StrtabSymbolsLast (strtab125.go)
	protoOrder    []string           // protoNames in the order of their first appearance
	protoStrs     []byte             // .strtab as merge leaves it, where the inputs' prototype records point (movePrototype)
	walk          walkHashes         // while merge runs: the section name hashes of the object it walks
	walkSyms      []walk             // while merge runs: its symbols' walks (symWalks)
	walkData      []bool             // while merge runs: its object's symbolOrder.holdsData (classifySymbols)
	walkInfo      []elf.Attr         // while merge runs: room for an .nv.info section's records (noteFunctionInfo)
	strq          *strQueue          // while merge runs: where its string-table additions go (nil: made at once)
	sawEmptyProto bool               // nvlink's empty prototype string was added (see mergeGlobal, mergeFile)
	liveRefs      symSet             // symbol IDs named by relocations of live code (dce)
	symSlab       []OutSym           // backing store of Syms (recordSlab)
	secSlab       []OutSec           // backing store of Secs (recordSlab)
	nameSlab      []byte             // backing store of the names joinName makes
	secSlabs      [][]OutSec         // slabs reserved for it (reserveSecs, strQueue), taken in turn
	symSlabs      [][]OutSym         // the same for symSlab (strQueue)
	firstGlobal   int
	nsyms         int
	// symAt: where in Locals then Globals the symbol of index
	// k*symAtStride is (indexSymbols); symOut: .symtab made run by run
	// as write streams it (nil: encoded whole first; write.go).
	symAt  []int32
	symOut *symtabOut

	// pins holds the heap memory that sections and symbols, their slabs
	// included, are reached through only by pointer-free memory (pin; see
	// recordSlab and growRecords).
	pins      pinList
	piecePins map[*OutSec]int // where pins holds a section's pieces (setPieces)
	// objKeep and objArrays keep alive what the objects of pointer-free
	// slabs point to on the heap (noscanSlab; objKeep nil: none).
	objKeep   *objKeep
	objArrays objArrays
	// recordsMapped: recordSlab takes the main arena's memory (a small
	// link's).
	recordsMapped bool

	// funcBankOff: the offset in the kernels' banks of each function
	// bank moved there, by its (dropped) output section; newKernelBanks:
	// the kernel banks to make for it (funcbank.go).
	funcBankOff    map[int32]uint64
	newKernelBanks []newKernelBank
	// unclaimedSecSyms: section symbols made for the debug sections of
	// an object without functions that no input's section symbol has
	// named so far (mergeFile); dropped at the end of merge.
	unclaimedSecSyms map[int32]bool
	// wideEntsize holds the sh_entsize of the output sections whose
	// entsize field is wideEntsize (an input's of 65,535 or more: none
	// in the corpus), by section ID.
	wideEntsize map[int32]uint32
	// liveTexts lists the live code sections in creation order, as dce
	// left them: no code section is made or revived after dce, and only
	// orderSections drops one (empty) afterwards.
	liveTexts []int32
	// dceBytes is the size of the live sections with bytes in the file
	// among the first dceSecs, as dce's walk over every section record
	// leaves them (startPrepare's estimate, which then walks only the
	// sections made since).
	dceBytes uint64
	dceSecs  int
	// infoSecs is the storage of finalize's .nv.info.<f> sections
	// (newSecChunks), kept for what mapped ones point to on the heap.
	infoSecs secChunks
}

// Obj is one relocatable cubin taking part in the link. (A link holds one
// per object: its small fields share words, and what few objects have is
// behind a pointer, rare: 224 bytes in all.)
type Obj struct {
	ID   int
	Name string    // as nvlink names it in diagnostics ("a.cubin", "libx.a:y.o")
	F    *elf.File // its bytes: F.Raw (what the sections alias; the names too in a link of small pages)
	// shstrtab is where its .shstrtab starts (nil: none), for merge's
	// prefetchAhead only (the names are freed after merge: releaseNames).
	shstrtab *byte
	System   bool // member of libcudadevrt
	// overlaps: two of its sections share file bytes (malformed input;
	// relocate then patches copies).
	overlaps bool
	// localByBinding: its symbols' local part is its local symbols, not
	// those below .symtab's sh_info (Release.LocalByBinding).
	localByBinding bool
	// slot is 1 + the object's place in a pointer-free slab (noscanSlab;
	// 0: not in one), where more finds its batch's keep (rareKeep).
	slot uint8
	// placeholder is the nameless function symbol kept under
	// --preserve-relocs: read and set through placeholderSym and
	// setPlaceholderSym (symmap.go), which keep its encoding.
	placeholder int32
	// cg, proto and infos find the object's .nv.callgraph, .nv.prototype
	// and .nv.info sections (eachCallgraph, eachPrototype,
	// eachInfoSection; set by decodeInfo).
	cg, proto, infos typedSecs
	// infoLast is the index of its last .nv.info section (eachInfoSection
	// stops there), set by decodeInfo, which decodes every record once.
	infoLast int32
	// cgRecords is the number of records its .nv.callgraph sections hold
	// (decodeInfo; buildCallgraph sizes its edge list by them).
	cgRecords int32
	// globalInfo is 1 + the index of its .nv.info section named .nv.info
	// (0: none; -1: several, in rare.globalInfos): noteGlobalInfo.
	globalInfo int32

	SymMap  []int32    // input symbol index -> output symbol ID, none or local data (symmap.go)
	SecMap  []int32    // input section index -> output section ID (-1: none)
	SecOff  []uint32   // input section index -> offset of its contribution in the output section (until relocate; secOff reads it)
	Drop    []bool     // input section dropped (weak loser, regenerated section)
	relSecs []relocSec // decoded relocation sections, in input section order
	resID   []int32    // input symbol index -> Context.Res index (-1: local)

	// rare is what few objects have (nil for most objects of a large link;
	// more makes it).
	rare *objRare
}

// objRare is what few objects have, apart from Obj to keep every object
// smaller (a link holds one Obj per input; in the generated links of
// 100,000 objects none has any of these).
type objRare struct {
	// host is what the host object it came from says of it (empty for
	// plain cubins).
	host objHost
	// launched: the kernels this object's code names by a relocation
	// (device-side launches, a kernel's of itself too), in relocation order
	// (dce's findCalls; finalize lists them as address-taken).
	launched []int32
	// sharedSyms are the symbols --preserve-relocs or -g keeps for shared
	// data, by input symbol index (only under keepPolicy.SharedSyms; their
	// values are set at layout's end, setSharedSymValues).
	sharedSyms map[int32]int32
	// laterWinner marks the code sections of weak functions a later file
	// replaces (nil when none; see standIn).
	laterWinner []bool
	lostData    []lostRange // replaced copies of weak data (markWeakLosers)
	// private holds the copies relocate patches instead of shared bytes
	// (see relocateObject): the section table naming them may live where
	// the collector does not look.
	private   [][]byte
	secByName map[string]int // input sections by name, built on first use (objects of over 64 sections)
	// globalInfos are its .nv.info sections named .nv.info, when there
	// are several (Obj.globalInfo).
	globalInfos []int32
	// const0Size are its local undefined symbols named ptxConst0Size
	// (Obj.isConst0Size).
	const0Size []int32
	// oddRelocs: a relocation of it is past its target section's end or
	// of a type relocate does not know (plainRelocs).
	oddRelocs bool
	// wideOff holds the contribution offsets of 4 GiB and more (only
	// inputs with huge sections without contents reach them), by input
	// section index, where SecOff holds wideOff.
	wideOff map[int32]uint64
}

// wideOff marks an Obj.SecOff entry that objRare.wideOff holds (SecOff
// is 32 bits: 5.5 MB less at 100,000 objects, 1.4 million sections).
const wideOff = 0xFFFFFFFF

// secOff is the offset of input section i's contribution in its output
// section.
func (o *Obj) secOff(i int) uint64 {
	if v := o.SecOff[i]; v != wideOff {
		return uint64(v)
	}
	return o.rare.wideOff[int32(i)]
}

// setSecOff makes off input section i's contribution offset (merge: o's
// objRare may be made).
func (o *Obj) setSecOff(i int, off uint64) {
	if off < wideOff {
		o.SecOff[i] = uint32(off)
		return
	}
	r := o.more()
	if r.wideOff == nil {
		r.wideOff = map[int32]uint64{}
	}
	o.SecOff[i], r.wideOff[int32(i)] = wideOff, off
}

// more is o's objRare, made on first use: only where no other goroutine
// may read it (read, for the object it makes; merge; dce's end; the
// order of finalize's keys). relocate, which works on objects in
// parallel and reads others' objRare, finds one made when read for what
// it adds (relocTargetData).
func (o *Obj) more() *objRare {
	if o.rare == nil {
		r := &objRare{}
		if o.slot != 0 {
			*o.rareKeep() = r // (first: see objKeep)
		}
		o.rare = r
	}
	return o.rare
}

// objHost is what an object's host object says of it.
type objHost struct {
	// moduleID is the host object's __nv_module_id.
	moduleID string
	// kernels are the kernels the host object's host code references
	// (name patterns; see hostKernelSet).
	kernels []string
}

// setHost records what the host object o came from says of it (nothing
// when it has neither a module ID nor host kernels).
func (o *Obj) setHost(moduleID string, kernels []string) {
	if moduleID != "" || kernels != nil {
		o.more().host = objHost{moduleID, kernels}
	}
}

// ModuleID is the __nv_module_id of the host object o came from ("" for
// plain cubins).
func (o *Obj) ModuleID() string {
	if o.rare == nil {
		return ""
	}
	return o.rare.host.moduleID
}

// hostKernels are the kernels the host code of the host object o came
// from references (name patterns; see hostKernelSet).
func (o *Obj) hostKernels() []string {
	if o.rare == nil {
		return nil
	}
	return o.rare.host.kernels
}

// launchedKernels is objRare.launched: the kernels o's code launches.
func (o *Obj) launchedKernels() []int32 {
	if o.rare == nil {
		return nil
	}
	return o.rare.launched
}

// lostRanges is objRare.lostData: the replaced copies of weak data in o.
func (o *Obj) lostRanges() []lostRange {
	if o.rare == nil {
		return nil
	}
	return o.rare.lostData
}

// sharedSym is the symbol --preserve-relocs or -g keeps for shared data
// i of o (objRare.sharedSyms), if any.
func (o *Obj) sharedSym(i int32) (int32, bool) {
	if o.rare == nil {
		return 0, false
	}
	id, ok := o.rare.sharedSyms[i]
	return id, ok
}

// OutSym is an output symbol. (Fields are ordered by size, to leave no
// padding: a large link holds hundreds of thousands.)
type OutSym struct {
	ID       int32
	Sec      int32 // output section ID; -1 = undefined
	File     int32
	nameOff  uint32 // offset of Name in .strtab (set when created)
	Shndx    uint16
	Info     uint8
	Other    uint8
	IsSecSym bool
	dead     bool // removed by dead code elimination
	// emptyName: the name is nvlink's second empty string (Context.emptyProto),
	// as for the --preserve-relocs placeholder.
	emptyName bool
	Name      string
	Value     uint64
	Size      uint64
	Index     int // final .symtab index
}

// Bind and Type split st_info.
func (s *OutSym) Bind() uint8 { return s.Info >> 4 }
func (s *OutSym) Type() uint8 { return s.Info & 0xF }

// Piece is one input section's contribution to an output section.
type Piece struct {
	Obj    int32
	Sec    int32
	Offset uint64
}

// OutSec is an output section. (A link makes some 4 an object, 400,000
// at 100,000 objects: the fields are ordered by size to leave no padding,
// and what few sections have is apart, in gen. 128 bytes.)
type OutSec struct {
	ID      int32
	nameOff uint32 // offset of Name in .shstrtab (set when created)
	Type    uint32
	InfoSym int32 // symbol ID named by sh_info (text, nv.info.<f>, constant0.<f>); -1 none
	InfoSec int32 // section ID named by sh_info (rela, nv.info.<f>); -1 none
	infoObj int32 // with infoIn: the input section sh_info names (per-kernel data sections)
	// infoIn is sh_info as an input gave it (0: none). Only sections made
	// from an input have one, and the passes that make a section with an
	// InfoSec of its own never set it (keyInfoSections relies on this).
	infoIn int32
	SymID  int32 // its section symbol; -1 none
	// entsize is sh_entsize, or wideEntsize for one that Context.wideEntsize
	// holds (Context.entsize reads it; setEntsize sets it).
	entsize uint16
	// InfoExtra is sh_info's high byte kept from the input (.text register
	// count).
	InfoExtra  uint8
	Nobits     bool
	LinkSymtab bool
	Dead       bool
	keep       bool // written even when empty
	pieced     bool // body holds Pieces, not Data
	Name       string
	Flags      uint64
	// Align is 64 bits: a shared variable's alignment comes from its
	// symbol's value, which a forged input makes past 2^32 (write then
	// refuses the output's size: TestForgedSharedAlignment).
	Align uint64
	Size  uint64
	// body is the section's generated contents (nv.info, callgraph, rela,
	// ...: Data, Context.setData) or, in a merged section, its pieces
	// (Pieces, Context.setPieces), as no section has both.
	body []byte
	gen  *genSec // what only a few generated sections have (Context.setGen)
	// one holds Pieces while there is one (most merged sections: a
	// function's code, its constant bank), sparing each an allocation of
	// its own (at 10,000 generated objects some 30,000 of the heap's
	// objects); a second piece moves them to the heap (append).
	one [1]Piece
}

// Data is s's generated contents (nil: none, or a merged section, whose
// bytes are its Pieces').
func (s *OutSec) Data() []byte {
	if s.pieced {
		return nil
	}
	return s.body
}

// setBody makes b s's generated contents, in place of any pieces, for a
// section whose storage is not a recordSlab's (secChunks: see there);
// Context.setData for any other.
func (s *OutSec) setBody(b []byte) { s.body, s.pieced = b, false }

// setData makes b s's generated contents, in place of any pieces.
func (ctx *Context) setData(s *OutSec, b []byte) {
	ctx.pin(unsafe.Pointer(unsafe.SliceData(b)))
	s.setBody(b)
}

// setGen gives s what a generated section of its kind has apart.
func (ctx *Context) setGen(s *OutSec, g *genSec) {
	ctx.pin(unsafe.Pointer(g))
	s.gen = g
}

// Pieces is the input sections merged into s, in output order.
func (s *OutSec) Pieces() []Piece {
	if !s.pieced {
		return nil
	}
	n, c := len(s.body)/pieceSize, cap(s.body)/pieceSize
	return unsafe.Slice((*Piece)(unsafe.Pointer(unsafe.SliceData(s.body))), c)[:n]
}

// setPieces makes l s's pieces (nil: none), in place of any contents.
// A list past the inline one is pinned in the section's own place in
// pins (piecePins), which its next array takes: the arrays a long list
// leaves behind as it grows stay garbage.
func (ctx *Context) setPieces(s *OutSec, l []Piece) {
	if l == nil {
		s.body, s.pieced = nil, false
		return
	}
	if d := unsafe.Pointer(unsafe.SliceData(l)); d != unsafe.Pointer(&s.one[0]) && (!s.pieced || d != unsafe.Pointer(unsafe.SliceData(s.body))) {
		// (A moved array: merge appends a piece an object to some.)
		if k, ok := ctx.piecePins[s]; ok {
			ctx.pins.set(k, d)
		} else {
			if ctx.piecePins == nil {
				ctx.piecePins = make(map[*OutSec]int)
			}
			ctx.piecePins[s] = ctx.pins.add(d)
		}
	}
	c := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(l))), cap(l)*pieceSize)
	s.body, s.pieced = c[:len(l)*pieceSize], true
}

const pieceSize = int(unsafe.Sizeof(Piece{}))

// wideEntsize marks an OutSec.entsize that Context.wideEntsize holds.
const wideEntsize = 0xFFFF

// entsize is s's sh_entsize.
func (ctx *Context) entsize(s *OutSec) uint32 {
	if s.entsize == wideEntsize {
		return ctx.wideEntsize[s.ID]
	}
	return uint32(s.entsize)
}

// setEntsize makes v the sh_entsize of s (a section of the link: its ID
// set).
func (ctx *Context) setEntsize(s *OutSec, v uint32) {
	if v < wideEntsize {
		s.entsize = uint16(v)
		return
	}
	if ctx.wideEntsize == nil {
		ctx.wideEntsize = map[int32]uint32{}
	}
	s.entsize, ctx.wideEntsize[s.ID] = wideEntsize, v
}

// genSec is what a few generated sections carry (apart, to keep every
// other output section smaller: a link makes some 4 output sections an
// object, and the first touch of their fresh memory costs more than
// filling them).
type genSec struct {
	callgraph *callgraph // .nv.callgraph
	prototype []cgEdge   // .nv.prototype (symbol, string offset)
	minStack  int        // .nv.info: Data[minStack:] are MIN_STACK_SIZE records, ordered by symbol index in the order pass
}

// relocs is the entries of a relocation section the link made, in output
// order (nil for any other section). Every output relocation section is
// relocate's, and not empty; its Data holds the entries' memory (setRelocs),
// which spares each of them (at 100,000 objects some 75,000) a record of
// its own.
func (s *OutSec) relocs() []OutRel {
	if !isRelocType(s.Type) || s.pieced || len(s.body) == 0 {
		return nil
	}
	return unsafe.Slice((*OutRel)(unsafe.Pointer(unsafe.SliceData(s.body))), len(s.body)/int(unsafe.Sizeof(OutRel{})))
}

// setRelocs makes l (not empty) the entries of relocation section s.
func (ctx *Context) setRelocs(s *OutSec, l []OutRel) {
	ctx.setData(s, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(l))), len(l)*int(unsafe.Sizeof(OutRel{}))))
}

// isRelocType reports the section types of relocation sections.
func isRelocType(t uint32) bool {
	return t == elf.SHTRela || t == elf.SHTRel || t == elf.SHTCudaResolvedRela
}

// contents reports whether g brings contents of its own (a call graph or
// prototypes).
func (g *genSec) contents() bool { return g != nil && (g.callgraph != nil || g.prototype != nil) }

// OutRel is a relocation kept in the output for the driver.
type OutRel struct {
	Offset uint64
	Sym    int32
	Type   uint32
	Addend int64
}

// Resolution is the outcome of symbol resolution for one global name.
type Resolution struct {
	File  int32 // winning definition (-1: undefined everywhere)
	Index int32
	Size  uint64
	Other uint8
	sym   int32 // the output symbol merge made for the name (-1: none yet)
}

// res is the resolution of global entry i of o (nil for locals).
func (ctx *Context) res(o *Obj, i int) *Resolution {
	if i < len(o.resID) && o.resID[i] >= 0 {
		return &ctx.Res[o.resID[i]]
	}
	return nil
}

// outputSink opens the output stream for a file of size bytes; nil when
// the file is to be kept in Out.
func (ctx *Context) outputSink(size uint64) (io.Writer, error) {
	if ctx.openOutput == nil {
		return nil, nil
	}
	return ctx.openOutput(size)
}

func newContext(opts *Options, diags *diag.Bag, prog string) *Context {
	c := &Context{
		Opts: opts, Diags: diags, Prog: prog,
		// .shstrtab: a section name's ordinal there is nvlink's creation
		// index of the section, which .symtab_shndx records.
		ShStr: NewStrTab(),
		Str:   newStrTabNoOrdinals(),
		Timer: &Timer{},
		// (set by dce when the link uses exactly one kernel)
		rootKernel:      -1,
		Rel:             nvlink118,
		freeTablesBelow: releaseTablesBelow,
	}
	// (One hash for both tables: a section name queued for both is hashed
	// once; see strQueue.)
	c.Str.seed = c.ShStr.seed
	c.setKeepPolicy()
	if !opts.PlainMemory {
		c.mem, c.tables = &hugemem.Arena{}, &hugemem.Arena{}
		// A small link's arenas keep small pages, past what it is sure to
		// fill in the main one; a larger link's take huge pages from their
		// first byte (its decoded tables outgrow releaseTablesBelow and
		// are never released: small pages would only cost faults, 10,000
		// objects 2,378 a link against 1,025).
		switch {
		case opts.SmallPages && opts.InputEstimate > 0:
			c.mem.HugeTo = int(opts.InputEstimate)
		case opts.SmallPages:
			c.mem.SmallFirst = hugemem.AllSmall
		}
		if opts.SmallPages {
			c.tables.SmallFirst = hugemem.AllSmall
		} else {
			c.names = &hugemem.Arena{}
		}
		c.recordsMapped = opts.SmallPages
	}
	// nvlink's output object starts with these names in both tables.
	for _, n := range []string{".shstrtab", ".strtab", ".symtab", ".symtab_shndx", ".nv.info"} {
		c.ShStr.Add(n)
		c.Str.Add(n)
	}
	return c
}
