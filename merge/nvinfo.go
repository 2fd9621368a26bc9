package merge

// .nv.info records of the output: the inputs' records translated to
// output symbols in parallel (gatherObjects, objectInfo), kept in
// compact form (nvinfo_compact.go), then assembled into .nv.info and one
// .nv.info.<f> per function (buildNvInfo), whose symbol indices the order
// pass writes into .nv.info (encodeInfo) and write into each .nv.info.<f>
// as it copies it (compactInfo).
// Invariant: the output's symbols and sections do not change while the
// translation runs (the records name them); each section's records are in
// nvlink's order (reverse input order, generated records last).

import (
	"encoding/binary"
	"sort"
	"sync"
	"unsafe"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/internal/prefetch"
)

// symIndexAttr reports EIATTR codes whose payload starts with a symbol index.
func symIndexAttr(code uint8) bool {
	switch code {
	case elf.EIAttrFrameSize, elf.EIAttrMinStackSize, elf.EIAttrMaxStackSize, elf.EIAttrRegcount,
		elf.EIAttrParamCbank, elf.EIAttrSamRegionStackSize:
		return true
	}
	return false
}

// remapSym maps an input symbol index of o to the output symbol index it
// will have; -1 when the symbol has no output record.
func remapSym(o *Obj, idx uint32) int32 {
	if int(idx) >= len(o.SymMap) {
		return -1
	}
	return o.SymMap[idx]
}

// liveSym is remapSym, but -1 also for symbols dead code elimination removed.
func (ctx *Context) liveSym(o *Obj, idx uint32) int32 {
	m := remapSym(o, idx)
	if m >= 0 && ctx.Syms[m].dead {
		return -1
	}
	return m
}

// infoRec is one .nv.info record of the output: an elf.Attr's fields,
// and sym, the output symbol ID that the payload's first word names (-1
// when it names none; symDropped: the record is removed from the
// output, which only EXTERNS records are). An EIATTR_EXTERNS record
// holds output symbol IDs in its payload, a little-endian word each
// (externID). Records are kept in compact form (appendCompact); an
// infoRec is one decoded for the few steps that read or change it.
type infoRec struct {
	Format  uint8
	Code    uint8
	Value   uint16
	sym     int32
	Payload []byte
}

// symDropped is infoRec.sym of a record removed from the output.
const symDropped = -2

// attr is the record as elf encodes it (an EXTERNS payload still of IDs).
func (r *infoRec) attr() elf.Attr {
	return elf.Attr{Format: r.Format, Code: r.Code, Value: r.Value, Payload: r.Payload}
}

// U32 is elf.Attr.U32: the payload's little-endian word at off (0 if short).
func (r *infoRec) U32(off int) uint32 { a := r.attr(); return a.U32(off) }

// isExterns reports an EIATTR_EXTERNS record (its payload lists output
// symbol IDs); isDropped a record removed from the output.
func (r *infoRec) isExterns() bool { return r.Code == elf.EIAttrExterns }
func (r *infoRec) isDropped() bool { return r.sym == symDropped }

// externCount is how many output symbol IDs an EXTERNS record lists;
// externID the i-th.
func (r *infoRec) externCount() int     { return len(r.Payload) / 4 }
func (r *infoRec) externID(i int) int32 { return int32(binary.LittleEndian.Uint32(r.Payload[4*i:])) }

// idPayloadOver is idPayload written over p when it has room (p is a
// record's own copy: a compact one's), else new.
func idPayloadOver(p []byte, ids []int32) []byte {
	if 4*len(ids) > len(p) {
		return idPayload(ids)
	}
	p = p[:0]
	for _, m := range ids {
		p = binary.LittleEndian.AppendUint32(p, uint32(m))
	}
	return p
}

// idPayload is the payload of an EXTERNS record listing output symbol IDs.
func idPayload(ids []int32) []byte {
	p := make([]byte, 0, 4*len(ids))
	for _, m := range ids {
		p = binary.LittleEndian.AppendUint32(p, uint32(m))
	}
	return p
}

// buildNvInfo builds .nv.info and the per-function .nv.info.<f> sections.
// nvlink keeps the records of a section in a list it prepends to, so each
// output section holds its records in reverse input order. The linker drops
// the per-function MAX_STACK_SIZE, keeps of each EXTERNS list the entries
// the link leaves unresolved and completes it with what the function
// reaches (closeExterns). Every function gets a .nv.info.<f>, in code
// order.
func buildNvInfo(ctx *Context, job *objGather) {
	per := job.per
	texts := ctx.liveTexts
	perFunc := gatherFuncInfos(len(ctx.Secs), per, ctx.lateScratch)
	perFunc.noteSections(ctx, ctx.lateScratch)
	order := ctx.infoOrder
	for _, t := range texts {
		if !ctx.infoNoted(t) {
			order = append(order, t)
		}
	}
	// The code sections in the order their .nv.info.<f> came in the
	// inputs, which only the root kernel's list reads (rootList).
	var inOrder []int32
	if ctx.rootKernel >= 0 {
		for i := range per {
			for _, f := range per[i].perFunc {
				inOrder = append(inOrder, f.text)
			}
		}
	}
	newExterns := closeExterns(ctx, perFunc, order, inOrder)
	gs := ctx.newSection(".nv.info", elf.SHTCudaInfo, 0, 4, 0)
	gs.LinkSymtab = true
	global, facts := globalInfo(ctx, per, len(texts))
	propagateRegCount(ctx, global, facts.regAt)
	n := len(global)
	global, unknown := stackSizes(ctx, global, texts, perFunc, &facts)
	ctx.setData(gs, global)
	gs.Size = uint64(len(global))
	ctx.setGen(gs, &genSec{minStack: n})
	// Each function's section: its records and its section record
	// prepared in parallel (the first touch of the records' fresh memory
	// too, which cost more than filling them), the sections added in
	// order.
	live := make([]int32, 0, len(order))
	for _, t := range order {
		if perFunc.live(ctx, t) {
			live = append(live, t)
		}
	}
	ctaidz := ctaidzEntries(ctx, perFunc, live)
	mbarriers := mbarrierEntries(ctx, perFunc, live)
	made := newSecChunks(ctx, len(live))
	nameHash := elf.SliceOf[uint32](len(live), ctx.lateScratch) // by k: the name's hash in .shstrtab
	fi := funcInfoJob{ctx: ctx, perFunc: perFunc, order: order, live: live, unknown: unknown,
		ctaidz: ctaidz, mbarriers: mbarriers, newExterns: newExterns}
	pool := make(chan *[]infoRec, workers(ctx.Opts.Threads))
	parallelFor((len(live)+infoBlock-1)/infoBlock, ctx.Opts.Threads, func(blk int) error {
		var recs *[]infoRec
		select {
		case recs = <-pool:
		default:
			recs = new([]infoRec)
		}
		fi.block(made, nameHash, blk*infoBlock, min(len(live), (blk+1)*infoBlock), recs)
		select {
		case pool <- recs:
		default:
		}
		return nil
	})
	addInfoSections(ctx, made, nameHash)
}

// infoAhead asks for what buildNvInfo's parallel loop reads of the code
// sections after live[k], cold: their section records four ahead, their
// names (the new sections' names are made from them) two ahead. Hints
// only.
func infoAhead(ctx *Context, live []int32, k int) {
	if j := k + 4; j < len(live) {
		prefetch.Range(unsafe.Pointer(ctx.Secs[live[j]]), unsafe.Sizeof(OutSec{}))
	}
	if j := k + 2; j < len(live) {
		if name := ctx.Secs[live[j]].Name; name != "" {
			prefetch.Line(uintptr(unsafe.Pointer(unsafe.StringData(name))))
		}
	}
}

// addInfoSections adds the functions' .nv.info.<f> sections (made, in
// order), their names to .shstrtab by the hashes made in parallel
// (nameHash), as addSection would: each name is new there, and its slot,
// cold, is asked for a few sections ahead (the lookups were most of the
// loop).
func addInfoSections(ctx *Context, made secChunks, nameHash []uint32) {
	ctx.Secs = growRecords(ctx.Secs, len(nameHash)) // (grown once)
	if !ctx.secNamesDone || ctx.strq != nil {
		for k := range nameHash {
			ctx.addSection(made.at(k))
		}
		return
	}
	const ahead = 8
	for k, h := range nameHash {
		if k+ahead < len(nameHash) {
			ctx.ShStr.prefetchSlot(nameHash[k+ahead])
		}
		s := made.at(k)
		s.ID = int32(len(ctx.Secs))
		ctx.Secs = appendRecord(ctx.Secs, s)
		s.nameOff = ctx.ShStr.addWithHash(s.Name, h)
	}
}

// externsBeforeCtaidz reports whether an entry (code section t) that gets
// both a new EXTERNS record and CTAIDZ_USED from the functions it reaches
// gets the EXTERNS first: nvlink 11.8 adds each as it meets the first
// reached function bringing it, in the output's .nv.info order (p calling
// printf before h reading blockIdx.z: EXTERNS, then CTAIDZ_USED; crafted
// externs-ctaidz-order). The root kernel gets CTAIDZ_USED first (crafted
// ctaidz-propagation).
func externsBeforeCtaidz(ctx *Context, t int32, order []int32, perFunc *funcInfos) bool {
	if ctx.Secs[t].InfoSym == ctx.rootKernel {
		return false
	}
	code := ctx.reachableCode(t)
	for _, c := range order {
		if c == t || !code[c] {
			continue
		}
		if perFunc.has(c, kindCtaidz) {
			return false
		}
		for _, r := range perFunc.externs(c) {
			if r.isExterns() && len(r.Payload) > 0 && !r.isDropped() {
				return true
			}
		}
	}
	return false
}

func hasAttr(rs []infoRec, code uint8) bool { return findAttr(rs, code) >= 0 }

// findAttr is the index of the first record with the code, or -1.
func findAttr(rs []infoRec, code uint8) int {
	for k, r := range rs {
		if r.Code == code {
			return k
		}
	}
	return -1
}

func le32(v uint32) []byte {
	b := make([]byte, 4)
	binary.LittleEndian.PutUint32(b, v)
	return b
}

// encodeInfo writes the records of .nv.info, now that symbol indices are
// final, in place from its compact form: the sections secs (orderSections;
// each .nv.info.<f> is patched as write copies it: compactInfo).
func encodeInfo(ctx *Context, secs []int32) {
	// Each section is encoded on its own (symbols are only read), into a
	// buffer of its exact size.
	parallelFor(len(secs), ctx.Opts.Threads, func(i int) error {
		encodeInfoSection(ctx, ctx.Secs[secs[i]])
		return nil
	})
}

func encodeInfoSection(ctx *Context, s *OutSec) {
	if s.gen != nil { // (.nv.info)
		sortMinStack(ctx, s.Data()[s.gen.minStack:])
		if ctx.Opts.Verbose {
			ctx.infoReport = append([]byte(nil), s.Data()...) // (-v reports from its records)
		}
	}
	patchCompact(ctx, s.Data())
}

// sortMinStack orders .nv.info's MIN_STACK_SIZE records (compact, in b)
// by their symbols' indices, stably.
func sortMinStack(ctx *Context, b []byte) {
	n := len(b) / minStackSize
	if n < 2 {
		return
	}
	recs := make([][minStackSize]byte, n)
	for i := range recs {
		copy(recs[i][:], b[i*minStackSize:])
	}
	index := func(r *[minStackSize]byte) int {
		return ctx.symIndexOf(int32(binary.LittleEndian.Uint32(r[4:])))
	}
	sort.SliceStable(recs, func(i, j int) bool { return index(&recs[i]) < index(&recs[j]) })
	for i := range recs {
		copy(b[i*minStackSize:], recs[i][:])
	}
}

// stoCudaEntry marks kernels (entry functions) in st_other.
const stoCudaEntry = 0x10

// lostDefinition reports whether input symbol i of o is a definition that
// lost resolution (a weak copy replaced by another file's).
// (The resolution first: a symbol that won its own, as most do, needs
// no read of its input record.)
func (ctx *Context) lostDefinition(o *Obj, i uint32) bool {
	if int(i) >= len(o.F.Symbols) {
		return false
	}
	r := ctx.res(o, int(i))
	if r == nil || r.File == int32(o.ID) && r.Index == int32(i) {
		return false
	}
	s := &o.F.Symbols[i]
	return s.Bind() != elf.STBLocal && s.Shndx != elf.SHNUndef
}

// objInfo is one object's .nv.info records, translated (objectInfo), in
// compact form.
type objInfo struct {
	global  []byte
	perFunc []funcRecs
}

// funcRecs are the records of one input .nv.info.<f> section, for output
// code section text, in compact form (nvinfo_compact.go).
type funcRecs struct {
	text  int32
	kinds recKinds // which records of interest are among them
	enc   []byte
}

// recKinds marks the records of interest among a function's records.
type recKinds uint8

const (
	kindExterns   recKinds = 1 << iota // EIATTR_EXTERNS
	kindCtaidz                         // EIATTR_CTAIDZ_USED
	kindMbarriers                      // EIATTR_NUM_MBARRIERS
)

// kindOf is what kind of interest a record of the code is (0: none).
func kindOf(code uint8) recKinds {
	switch code {
	case elf.EIAttrExterns:
		return kindExterns
	case elf.EIAttrCtaidzUsed:
		return kindCtaidz
	case elf.EIAttrNumMbarriers:
		return kindMbarriers
	}
	return 0
}

// funcInfos is the translated records of every code section that had an
// input .nv.info.<f>, by output section ID (of). (An index of 4 bytes a
// section and a slice a code section with records, rather than a slice
// for every output section: at 100,000 objects 9.5 MB of fresh memory,
// read over again by each step that looks for code sections' records.)
type funcInfos struct {
	at  []int32  // by output section ID: 1 + its index in enc (0: none)
	enc [][]byte // the records in compact form, in the order of their sections' first contribution
	// kinds is, by index in enc, what records of interest each holds;
	// ext[extLo[k]:extLo[k+1]] are its EXTERNS records, decoded, the only
	// ones read before the sections are built (closeExterns rewrites
	// their lists in place).
	kinds []recKinds
	extLo []int32
	ext   []infoRec
	any   recKinds // what any function's records hold
	// By index in enc: the code section, its function symbol (InfoSym),
	// whether it is live and whether it is an entry that gathers (see
	// noteSections). The steps over the functions read these rather than
	// each output section and symbol again (at 100,000 objects each such
	// pass took some 10 ms, most of it cache misses).
	sec, sym     []int32
	alive, entry []bool
}

// gatherFuncInfos collects the objects' per-function records (nsecs: the
// output section count): a section's contributions are joined in file
// order; the index's memory comes from alloc (nil: make).
func gatherFuncInfos(nsecs int, per []objInfo, alloc elf.Alloc) *funcInfos {
	n := 0
	for i := range per {
		n += len(per[i].perFunc)
	}
	p := &funcInfos{at: elf.SliceOf[int32](nsecs, alloc), enc: make([][]byte, 0, n), kinds: elf.SliceOf[recKinds](n, alloc),
		sec: elf.SliceOf[int32](n, alloc)[:0]}
	for i := range per {
		for _, f := range per[i].perFunc {
			k := p.at[f.text]
			if k > 0 {
				l := p.enc[k-1]
				p.enc[k-1] = append(l[:len(l):len(l)], f.enc...)
			} else {
				p.enc = append(p.enc, f.enc) // usually the only contributor
				p.sec = append(p.sec, f.text)
				k = int32(len(p.enc))
				p.at[f.text] = k
			}
			p.kinds[k-1] |= f.kinds
			p.any |= f.kinds
		}
	}
	p.gatherExterns(alloc)
	return p
}

// recsAhead is how many functions or objects ahead the walks over their
// compact records (gatherExterns, globalInfo) ask for them.
const recsAhead = 6

// gatherExterns decodes the functions' EXTERNS records into ext (their
// headers alone are read past the others).
func (p *funcInfos) gatherExterns(alloc elf.Alloc) {
	p.extLo = elf.SliceOf[int32](len(p.enc)+1, alloc)
	if p.any&kindExterns == 0 {
		return
	}
	// (Sized for one record a function that has any, as functions have:
	// counting them would read every such function's records twice.)
	n := 0
	for k := range p.enc {
		if p.kinds[k]&kindExterns != 0 {
			n++
		}
	}
	p.ext = make([]infoRec, 0, n)
	for k, b := range p.enc {
		if a := k + recsAhead; a < len(p.enc) && p.kinds[a]&kindExterns != 0 {
			// (Each function's records lie in its object's memory:
			// asked for ahead.)
			prefetch.Slice(p.enc[a][:min(len(p.enc[a]), 128)])
		}
		if p.kinds[k]&kindExterns != 0 {
			for off := 0; off < len(b); {
				next := compactNext(b, off)
				if b[off+1] == elf.EIAttrExterns {
					p.ext = decodeCompact(p.ext, b[off:next])
				}
				off = next
			}
		}
		p.extLo[k+1] = int32(len(p.ext))
	}
}

// noteSections fills in what the steps over the functions read of their
// sections and symbols (alloc: as gatherFuncInfos'). An entry gathers
// its callees' EXTERNS and gets a MIN_STACK_SIZE: under --kernels-used
// only the roots of dead code elimination (a kernel only
// --preserve-relocs keeps does not).
func (p *funcInfos) noteSections(ctx *Context, alloc elf.Alloc) {
	n := len(p.sec)
	p.sym, p.alive, p.entry = elf.SliceOf[int32](n, alloc), elf.SliceOf[bool](n, alloc), elf.SliceOf[bool](n, alloc)
	for k, t := range p.sec {
		// (The section records, and the records of their functions'
		// symbols, are cold and scattered: asked for ahead, in two
		// stages.)
		if a := k + 8; a < n {
			prefetch.Range(unsafe.Pointer(ctx.Secs[p.sec[a]]), unsafe.Sizeof(OutSec{}))
		}
		if a := k + 4; a < n {
			if f := ctx.Secs[p.sec[a]].InfoSym; f >= 0 {
				prefetch.Range(unsafe.Pointer(ctx.Syms[f]), unsafe.Sizeof(OutSym{}))
			}
		}
		s := ctx.Secs[t]
		p.sym[k], p.alive[k] = s.InfoSym, !s.Dead
		p.entry[k] = ctx.gathers(s.InfoSym)
	}
}

// live reports whether code section t is live (noteSections).
func (p *funcInfos) live(ctx *Context, t int32) bool {
	if k := p.at[t]; k > 0 {
		return p.alive[k-1]
	}
	return !ctx.Secs[t].Dead
}

// gathers reports whether function symbol f (-1: none) is an entry that
// gathers (noteSections).
func (ctx *Context) gathers(f int32) bool {
	return f >= 0 && ctx.Syms[f].Other&stoCudaEntry != 0 && (ctx.dceRoot == nil || ctx.dceRoot[f])
}

// function is code section t's function symbol and whether it is an
// entry that gathers (noteSections).
func (p *funcInfos) function(ctx *Context, t int32) (f int32, entry bool) {
	if k := p.at[t]; k > 0 {
		return p.sym[k-1], p.entry[k-1]
	}
	f = ctx.Secs[t].InfoSym // (a code section without .nv.info.<f>)
	return f, ctx.gathers(f)
}

// externsOf is the EXTERNS records of the k-th function (by index in
// enc), decoded: their lists may be changed in place.
func (p *funcInfos) externsOf(k int) []infoRec { return p.ext[p.extLo[k]:p.extLo[k+1]] }

// externs is the EXTERNS records of code section t (externsOf).
func (p *funcInfos) externs(t int32) []infoRec {
	if k := p.at[t]; k > 0 {
		return p.externsOf(int(k - 1))
	}
	return nil
}

// has reports whether code section t's records hold one of kind.
func (p *funcInfos) has(t int32, kind recKinds) bool {
	k := p.at[t]
	return k > 0 && p.kinds[k-1]&kind != 0
}

// mbarriers is the value of code section t's first NUM_MBARRIERS record.
func (p *funcInfos) mbarriers(t int32) (uint16, bool) {
	if !p.has(t, kindMbarriers) {
		return 0, false
	}
	b := p.enc[p.at[t]-1]
	for off := 0; off < len(b); off = compactNext(b, off) {
		if b[off+1] == elf.EIAttrNumMbarriers {
			return binary.LittleEndian.Uint16(b[off+2:]), true
		}
	}
	return 0, false
}

// records appends all the records of code section t to dst, decoded,
// with its EXTERNS records as closeExterns left them.
func (p *funcInfos) records(t int32, dst []infoRec) []infoRec {
	k := int(p.at[t]) - 1
	if k < 0 {
		return dst
	}
	start := len(dst)
	dst = decodeCompact(dst, p.enc[k])
	if p.kinds[k]&kindExterns != 0 {
		ext := p.externsOf(k)
		for i := start; i < len(dst); i++ {
			if dst[i].isExterns() {
				dst[i], ext = ext[0], ext[1:]
			}
		}
	}
	return dst
}

// eachExterns calls fn for every section whose records hold an EXTERNS
// one, in section ID order, with its function symbol.
func (p *funcInfos) eachExterns(fn func(f int32, recs []infoRec)) {
	for _, k := range p.at {
		if k > 0 && p.kinds[k-1]&kindExterns != 0 {
			fn(p.sym[k-1], p.externsOf(int(k-1)))
		}
	}
}

// objectInfo translates the .nv.info records of one object to the output:
// symbol indices become output symbols, records of dropped weak copies and
// MAX_STACK_SIZE (recomputed) go, EXTERNS keep what may survive the link.
// All of them in compact form, the global ones in one buffer, the
// functions' in another: a record takes at most its input size (EXTERNS
// lists only shrink); the buffers and the list come from slab.
func objectInfo(ctx *Context, o *Obj, slab *byteSlab) (global []byte, perFunc []funcRecs) {
	ng, nf, funcs := 0, 0, 0
	o.eachInfoSection(func(si int, s *elf.Section) {
		if o.isGlobalInfo(si) {
			ng += len(s.Data())
		} else {
			nf += len(s.Data())
			funcs++
		}
	})
	global = slab.take(ng)
	enc := slab.take(nf)
	perFunc = slab.takeFuncs(funcs)
	o.eachInfoSection(func(si int, s *elf.Section) {
		var textSec int32 = -1
		if !o.isGlobalInfo(si) {
			if int(s.Info) >= len(o.F.Sections) || o.Drop[s.Info] || o.SecMap[s.Info] < 0 {
				return
			}
			textSec = o.SecMap[s.Info]
		}
		if textSec < 0 {
			enc, global = global, enc // (for this section's records)
		}
		start := len(enc)
		var kinds recKinds
		enc, kinds = appendTranslated(ctx, o, enc, s.Data())
		if textSec < 0 {
			enc, global = global, enc
		} else {
			perFunc = append(perFunc, funcRecs{textSec, kinds, enc[start:len(enc):len(enc)]})
		}
	})
	return global, perFunc
}

// secChunk is the number of sections in each chunk of secChunks: 1024
// (160 KiB).
const secChunk = 1024

// secChunks is storage for n output sections in chunks of secChunk: in
// the inputs' tables' memory when releaseTables reset it for reuse
// (mapped), whose pages are resident already (at 100,000 objects 16 MB of
// sections and 5 MB of names that finalize, where the heap peaks, would
// otherwise add to the heap), else from the heap, which can take chunks
// from the free runs that earlier passes' garbage left, where a single
// array of them (15 MB for 120,000 functions) would need fresh pages.
// The collector does not scan the tables' memory: a section there holds
// pointers only into it (its name and contents from name and bytes).
type secChunks struct {
	c      [][]OutSec
	mapped bool
	mu     *sync.Mutex // guards keep
	keep   *[][]byte   // heap bytes a mapped section points to (mappings failed), kept alive from here
}

func newSecChunks(ctx *Context, n int) secChunks {
	c := secChunks{c: make([][]OutSec, (n+secChunk-1)/secChunk), mapped: true, mu: new(sync.Mutex), keep: new([][]byte)}
	for i := range c.c {
		k := min(secChunk, n-i*secChunk)
		// (Not cleared here, serially: funcInfoJob.block's genSection
		// clears each record, in parallel, before anything reads it;
		// the collector does not scan this memory.)
		b := ctx.lateSecsMapped(k * int(unsafe.Sizeof(OutSec{})))
		if b == nil {
			c.mapped = false
			break
		}
		c.c[i] = recordsIn[OutSec](b, k)
	}
	if !c.mapped {
		for i := range c.c {
			c.c[i] = make([]OutSec, min(secChunk, n-i*secChunk))
		}
	}
	ctx.infoSecs = c
	return c
}

// at is section k's storage.
func (c secChunks) at(k int) *OutSec { return &c.c[k/secChunk][k%secChunk] }

// alloc returns n bytes for contents and names bytes for the names of
// sections of c: from the tables' memory for a mapped one, in one
// allocation; else the contents from lateKeep and the names from the
// heap.
func (c secChunks) alloc(ctx *Context, n, names int) ([]byte, []byte) {
	if !c.mapped {
		return ctx.lateKeep(n), make([]byte, names)
	}
	m := ctx.lateKeepMapped(n + names)
	if m == nil {
		m = make([]byte, n+names)
		c.mu.Lock()
		*c.keep = append(*c.keep, m)
		c.mu.Unlock()
	}
	return m[:n:n], m[n:]
}

// globalInfo is .nv.info's contents in compact form: every object's
// global records, the last object's first, each object's reversed (nvlink
// prepends), with room after them for n MIN_STACK_SIZE records (in the
// memory of the inputs' tables: the objects' records go with finalize's
// collection). What propagateRegCount and stackSizes read of the records
// is noted as they are placed (globalFacts), not found by walks of their
// own over the whole.
func globalInfo(ctx *Context, per []objInfo, n int) ([]byte, globalFacts) {
	size := n * minStackSize
	for i := range per {
		size += len(per[i].global)
	}
	facts := newGlobalFacts(len(ctx.Syms), ctx.lateScratch)
	out := ctx.lateKeep(size)[:0]
	var at []int
	for i := len(per) - 1; i >= 0; i-- {
		if a := i - recsAhead; a >= 0 {
			// (Each object's records lie in its own memory: asked for
			// ahead.)
			prefetch.Slice(per[a].global[:min(len(per[a].global), 128)])
		}
		b := per[i].global
		at = compactOffsets(at[:0], b)
		end := len(b)
		for k := len(at) - 1; k >= 0; k-- {
			if c := b[at[k]+1]; c == elf.EIAttrRegcount || c == elf.EIAttrFrameSize {
				facts.note(b[at[k]:end], len(out))
			}
			out = append(out, b[at[k]:end]...)
			end = at[k]
		}
	}
	return out, facts
}

// globalFacts is what globalInfo notes of .nv.info's records, by output
// symbol ID, the first record of a function in output order counting: the
// offset in .nv.info's compact records (+1; 0: none) of its REGCOUNT
// record (propagateRegCount raises it in place) and of its FRAME_SIZE
// record (stackSizes reads its value there).
type globalFacts struct {
	regAt, frameAt []int32
}

// newGlobalFacts is globalFacts for n symbols, from alloc (nil: make).
func newGlobalFacts(n int, alloc elf.Alloc) globalFacts {
	return globalFacts{regAt: elf.SliceOf[int32](n, alloc), frameAt: elf.SliceOf[int32](n, alloc)}
}

// note notes the REGCOUNT or FRAME_SIZE record rec, placed at off.
func (g *globalFacts) note(rec []byte, off int) {
	f, ok := compactSymAt(rec, 0)
	if !ok || f < 0 || int(f) >= len(g.regAt) {
		return
	}
	at := g.frameAt
	if rec[1] == elf.EIAttrRegcount {
		at = g.regAt
	}
	if at[f] == 0 {
		at[f] = int32(off) + 1
	}
}
