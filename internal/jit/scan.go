package jit

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/warplink/warplink/elf"
	"github.com/warplink/warplink/elf/ar"
	"github.com/warplink/warplink/elf/fatbin"
	"github.com/warplink/warplink/elf/hostobj"
	"github.com/warplink/warplink/internal/input"
)

// itemKind is what an input gives an LTO link.
type itemKind int

const (
	itemNone itemKind = iota // no device code for the target
	itemIR                   // NVVM IR: a module of the LTO program
	itemCode                 // SASS, a cubin or PTX: linked beside the LTO cubin
)

// item is one input, or one archive member, of an LTO link.
type item struct {
	name  string // nvlink's name: the path, or archive:member
	kind  itemKind
	devrt bool     // from libcudadevrt (does not make the link partial)
	ir    []byte   // itemIR: the member's payload (wrapped IR)
	opts  []string // itemIR: the member's libnvvm options
	// host is the object's host reference sections (.nvHR*) by name,
	// nil for an input that is no host object; hasHost reports whether
	// a host object had them.
	host    map[string][]byte
	isHost  bool
	hasHost bool
	member  bool   // an archive member
	module  string // the host object's __nv_module_id
	// ptx, with scanPTX, is the PTX the link compiles for the input when
	// it does not take its IR (a PTX member for a compute arch up to the
	// target's and no SASS, its NULs cut; or a PTX file), ptxOpts the
	// member's options (nil for a file).
	ptx     []byte
	ptxOpts []string
}

// scanMode says what scan decodes besides each input's kind.
type scanMode int

const (
	scanIR   scanMode = 1 << iota // the NVVM IR (LTO)
	scanPTX                       // the PTX (the Compiler's compiles ahead)
	scanKind scanMode = 0         // nothing: names and kinds only
)

// scan classifies the link's inputs for target arch, in nvlink's order
// (the file inputs, then the -l libraries; an archive once), as
// internal/input expands them. It returns the first input that cannot be
// read ("" if none), which nvlink reports before its LTO step.
func scan(inputs, libDirs []string, arch int, mode scanMode) ([]item, string) {
	var files, libs []string
	for _, in := range inputs {
		if name, ok := strings.CutPrefix(in, "-l"); ok {
			if p, found := input.FindLibrary(name, libDirs); found {
				libs = append(libs, p)
			}
			continue
		}
		files = append(files, in)
	}
	seen := &input.Seen{}
	var items []item
	for _, path := range append(files, libs...) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, path
		}
		ext := filepath.Ext(path)
		switch {
		case ext == ".cubin":
			items = append(items, item{name: path, kind: itemCode})
		case ext == ".fatbin" || ext == ".ptx" && fatbin.IsFatbin(data):
			if c, err := fatbin.ParseFirst(data); err == nil {
				items = append(items, classify(item{name: path}, c.Members, arch, mode))
			}
		case ext == ".ptx":
			it := item{name: path, kind: itemCode}
			if mode&scanPTX != 0 && input.IsPTXText(data) {
				it.ptx = data
			}
			items = append(items, it)
		case ar.IsArchive(data):
			if !seen.Add(path) {
				continue
			}
			a, err := ar.Parse(data)
			if err != nil {
				continue
			}
			devrt := strings.Contains(path, "cudadevrt")
			for _, m := range a.Members {
				mdata := m.Data
				if a.Thin {
					mp := m.Path
					if !filepath.IsAbs(mp) {
						mp = filepath.Join(filepath.Dir(path), mp)
					}
					if mdata, err = os.ReadFile(mp); err != nil {
						continue
					}
				}
				if m.BSD || !elf.IsELF(mdata) {
					continue
				}
				if it, ok := hostItem(path+":"+m.Name, mdata, arch, mode); ok {
					it.devrt, it.member = devrt, true
					items = append(items, it)
				}
			}
		case elf.IsELF(data) && ext != ".so":
			if it, ok := hostItem(path, data, arch, mode); ok {
				items = append(items, it)
			}
		}
	}
	return items, ""
}

// hostItem classifies a host object (ok false: not one).
func hostItem(name string, data []byte, arch int, mode scanMode) (item, bool) {
	f, err := elf.Parse(data)
	if err != nil || f.Header.Machine == elf.EMCUDA {
		return item{}, false
	}
	o := hostobj.FromFile(f)
	it := item{name: name, isHost: true, hasHost: o.HostInfo, host: map[string][]byte{}, module: o.ModuleID}
	for i := range f.Sections {
		if s, name := &f.Sections[i], f.SecName(i); strings.HasPrefix(name, ".nvHR") && s.Type != elf.SHTNobits {
			it.host[name] = s.Data()
		}
	}
	if !o.HasDeviceCode() {
		return it, true
	}
	cs, err := fatbin.Parse(o.Fatbin)
	if err != nil {
		return it, true
	}
	var ms []fatbin.Member
	for _, c := range cs {
		ms = append(ms, c.Members...)
	}
	return classify(it, ms, arch, mode), true
}

// classify sets it's kind from its fatbinary members: NVVM IR for a
// compute arch up to the target (the highest) makes it an IR input;
// else code nvlink links or JIT-compiles. mode says whether to decode the
// IR and the PTX a link without IR compiles (as internal/input picks it).
func classify(it item, ms []fatbin.Member, arch int, mode scanMode) item {
	if i, choice := fatbin.Select(ms, arch); choice == fatbin.PTXOnly && mode&scanPTX != 0 {
		if ptx, err := ms[i].Contents(); err == nil {
			it.ptx, it.ptxOpts = bytes.TrimRight(ptx, "\x00"), ms[i].Options()
		}
	}
	best := -1
	for i := range ms {
		if ms[i].Kind == fatbin.KindNVVM && ms[i].Arch <= arch && (best < 0 || ms[i].Arch > ms[best].Arch) {
			best = i
		}
	}
	if best >= 0 {
		it.kind = itemIR
		if mode&scanIR == 0 {
			return it
		}
		if ir, err := ms[best].Contents(); err == nil {
			it.ir, it.opts = bytes.Clone(ir), ms[best].Options()
			return it
		}
		it.kind = itemNone
	}
	if _, choice := fatbin.Select(ms, arch); choice != fatbin.NoCode {
		it.kind = itemCode
	}
	return it
}

// hostRefKinds are the host reference lists, in nvlink's order: kernels,
// constants, globals; external, internal. line is the list's line in the
// file nvlink 11.8 writes, sec the host objects' section.
var hostRefKinds = [6]struct{ line, sec string }{
	{"EK", ".nvHRKE"}, {"IK", ".nvHRKI"}, {"EC", ".nvHRCE"}, {"IC", ".nvHRCI"}, {"EG", ".nvHRDE"}, {"IG", ".nvHRDI"},
}

// hostRefs are the host reference lists libnvvm gets (ok false: none),
// by hostRefKinds, each in nvlink's order: nvlink builds each list by
// putting every entry in front, so the entries of the host objects' .nvHR
// sections (libcudadevrt's included) come in reverse input order, last
// entry first. --kernels-used and --variables-used (as *name*) replace
// the objects' lists: kernels go to EK and IK, variables to EC, IC, EG and
// IG. There are none when a host object (not libcudadevrt's) has no .nvHR
// sections, or when no object but libcudadevrt's references a kernel
// (only variables: none).
func hostRefs(items []item, kernels, variables []string) (lists [6][]string, ok bool) {
	if len(kernels)+len(variables) > 0 {
		for k := range hostRefKinds {
			from := variables
			if hostRefKinds[k].line[1] == 'K' {
				from = kernels
			}
			for _, n := range from {
				lists[k] = append(lists[k], "*"+n+"*")
			}
		}
	} else {
		kernelRef := false
		for _, it := range items {
			if it.isHost && !it.hasHost && !it.devrt {
				return lists, false
			}
			for k := range hostRefKinds {
				for _, p := range bytes.Split(it.host[hostRefKinds[k].sec], []byte{0}) {
					if len(p) > 0 {
						lists[k] = append(lists[k], string(p))
						kernelRef = kernelRef || hostRefKinds[k].line[1] == 'K' && !it.devrt
					}
				}
			}
		}
		if !kernelRef {
			return lists, false
		}
	}
	for k := range lists {
		slices.Reverse(lists[k])
	}
	return lists, true
}

// hostRefFile is the host reference file nvlink 11.8 hands libnvvm
// (-host-ref-file): a line "EK: " etc. of "<len>:<pattern> " entries per
// list that has some.
func hostRefFile(lists [6][]string) []byte {
	var b bytes.Buffer
	for k, l := range lists {
		if len(l) == 0 {
			continue
		}
		b.WriteString(hostRefKinds[k].line + ": ")
		for _, e := range l {
			b.WriteString(strconv.Itoa(len(e)) + ":" + e + " ")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// hostRefOptions are the host reference lists as nvlink 12.5 hands them
// to libnvvm: an option per list that has some, -host-ref-ek=a,b ...
func hostRefOptions(lists [6][]string) []string {
	var opts []string
	for k, l := range lists {
		if len(l) > 0 {
			opts = append(opts, "-host-ref-"+strings.ToLower(hostRefKinds[k].line)+"="+strings.Join(l, ","))
		}
	}
	return opts
}
