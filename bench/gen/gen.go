// Package gen writes synthetic device-link workloads of any size from real
// relocatable sm_90 cubins (the corpus, built by nvcc 11.8). Each object is a
// template cubin whose identifiers are renamed properly (string tables
// rebuilt, offsets fixed, file laid out again; see Rename), so that N objects
// define N distinct kernels while keeping the features that make a link
// work: cross-object calls, weak template instantiations shared by every
// object, __device__ globals with initialisers, per-kernel shared memory and
// __constant__ data. The output depends only on N, the seed and the
// templates.
package gen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/warplink/warplink/elf"
)

// Arch is the target of the template cubins; links of generated workloads
// use -arch=Arch.
const Arch = "sm_90"

// DefaultCorpus is the template directory relative to the repository root.
const DefaultCorpus = "testdata/corpus/cuda11.8-sm_90"

// maxConstUnits bounds the number of constants units in a workload: each
// adds 0x34 bytes to the shared bank-3 __constant__ segment, which is 64 KiB.
const maxConstUnits = 400

// unit is a group of template objects linked together: identifiers listed in
// rename get a per-unit suffix in every file of the group, so references
// between the files of one unit resolve to each other and to nothing else.
// Names not listed (the weak template instantiations) stay identical across
// units and collide on purpose.
type unit struct {
	name   string
	files  []string // program/file.cubin, in link order
	rename []string
}

// weighted is a unit and its relative frequency.
type weighted struct {
	unit
	weight int
}

// catalog lists the workload's building blocks with their weights.
func catalog() []weighted {
	return []weighted{
		// kernel -> stage_b (next object) -> stage_c (next object).
		{unit{"xcall", []string{"xcall/a.cubin", "xcall/b.cubin", "xcall/c.cubin"},
			[]string{"xcall_main", "stage_b", "stage_c"}}, 3},
		// One kernel each; poly<4> and shared_inline are weak in every object.
		{unit{"weak_a", []string{"weakregs/a.cubin"}, []string{"weak_a"}}, 2},
		{unit{"weak_b", []string{"weakregs/b.cubin"}, []string{"weak_b"}}, 1},
		{unit{"weak_c", []string{"weakregs/c.cubin"}, []string{"weak_c"}}, 1},
		// Kernels using extern __device__ globals defined (with .nv.global.init
		// and .nv.global) by the next object.
		{unit{"globals", []string{"globals/a.cubin", "globals/b.cubin"},
			[]string{"globals_main", "globals_read", "counter", "table", "unused_global"}}, 1},
		// Kernels with static __shared__ arrays calling a function of the next
		// object.
		{unit{"shared", []string{"shared/a.cubin", "shared/b.cubin"},
			[]string{"shared_static", "shared_small", "reduce_tile", "shared_other"}}, 2},
		// extern __constant__ data in bank 3, defined by the next object.
		{unit{"constants", []string{"constants/a.cubin", "constants/b.cubin"},
			[]string{"constants_main", "constants_local", "coeffs", "scale", "local_only"}}, 1},
	}
}

// Templates holds the parsed template cubins.
type Templates struct {
	files map[string]*elf.File
}

// LoadTemplates reads the template cubins from a corpus directory laid out
// like testdata/corpus/cuda11.8-sm_90 (program/file.cubin).
func LoadTemplates(dir string) (*Templates, error) {
	t := &Templates{files: map[string]*elf.File{}}
	for _, u := range catalog() {
		for _, name := range u.files {
			if t.files[name] != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, err
			}
			f, err := elf.Parse(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			if f.Header.Machine != elf.EMCUDA || f.Header.Type != elf.ETRel {
				return nil, fmt.Errorf("%s: not a relocatable cubin", name)
			}
			t.files[name] = f
		}
	}
	return t, nil
}

// Config selects a workload.
type Config struct {
	N    int    // number of objects
	Seed uint64 // with N, decides the mix of units
}

// Object is one generated cubin.
type Object struct {
	Name string // file name, e.g. "o000042.cubin"
	Data []byte
	// Unit numbers the group of objects it belongs to, which reference
	// each other and come one after another: a prefix of the workload
	// that ends where the unit changes links on its own.
	Unit int
}

// Generate produces the workload's objects in link order and hands each to
// emit as soon as it is built; the data is not retained. The same Config and
// templates always give the same bytes.
func (t *Templates) Generate(cfg Config, emit func(Object) error) error {
	if cfg.N < 1 {
		return fmt.Errorf("gen: need at least one object, got %d", cfg.N)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.N)))
	units := catalog()
	total := 0
	for _, u := range units {
		total += u.weight
	}
	constUnits := 0
	for k, i := 0, 0; i < cfg.N; k++ {
		u := pick(rng, units, total)
		if len(u.files) > cfg.N-i || (u.name == "constants" && constUnits >= maxConstUnits) {
			u = &units[1].unit // a single-object unit fills the tail
		}
		if u.name == "constants" {
			constUnits++
		}
		idents := make(map[string]string, len(u.rename))
		for _, id := range u.rename {
			idents[id] = fmt.Sprintf("%s_u%d", id, k)
		}
		for _, name := range u.files {
			b, err := Rename(t.files[name], idents)
			if err != nil {
				return fmt.Errorf("gen: %s: %v", name, err)
			}
			if err := emit(Object{Name: ObjectName(i), Data: b, Unit: k}); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

func pick(rng *rand.Rand, units []weighted, total int) *unit {
	r := rng.IntN(total)
	for i := range units {
		if r < units[i].weight {
			return &units[i].unit
		}
		r -= units[i].weight
	}
	return &units[0].unit
}

// ObjectName is the file name of the i-th object (0-based). Names are short
// because a 100,000-object link passes them all on one command line.
func ObjectName(i int) string { return fmt.Sprintf("o%06d.cubin", i) }

// WriteDir generates the workload into dir (created if needed) and returns
// the object file names in link order, relative to dir, and the total size.
func (t *Templates) WriteDir(dir string, cfg Config) (names []string, bytes int64, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	err = t.Generate(cfg, func(o Object) error {
		names = append(names, o.Name)
		bytes += int64(len(o.Data))
		return os.WriteFile(filepath.Join(dir, o.Name), o.Data, 0o644)
	})
	return names, bytes, err
}
