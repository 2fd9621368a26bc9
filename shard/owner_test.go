package shard

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/warplink/warplink/internal/leakcheck"
)

func TestShardOf(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 64, 1000} {
		counts := make([]int, n)
		for _, h := range []uint32{0, 1, 0x7fffffff, 0x80000000, 0xffffffff} {
			if s := ShardOf(h, n); s < 0 || s >= n {
				t.Fatalf("ShardOf(%#x, %d) = %d", h, n, s)
			}
		}
		for i := range 20000 {
			counts[ShardOf(Murmur3String(fmt.Sprint("_Z3symi", i)), n)]++
		}
		// Murmur3 spreads names evenly: no shard gets twice its share.
		for s, c := range counts {
			if c > 2*20000/n+50 {
				t.Errorf("n=%d: shard %d got %d of 20000", n, s, c)
			}
		}
	}
}

// fakeFile is the symbol table of one fake input: a few names drawn from a
// small pool so that files collide, with random states.
func fakeFile(f int) []Cand {
	r := rand.New(rand.NewPCG(uint64(f), 7))
	n := r.IntN(30)
	out := make([]Cand, n)
	for i := range out {
		out[i] = Cand{File: int32(f), Index: int32(i), Kind: Kind(r.IntN(3)), Weak: r.IntN(3) == 0,
			Func: true, RegCount: uint32(r.IntN(3)), Size: uint64(r.IntN(2))}
	}
	return out
}

type item struct {
	name string
	c    Cand
}

// table is one shard's state: resolved symbols plus the order in which
// files were folded and the diagnostics, which would expose any reordering.
type table struct {
	syms  map[string]Sym
	files []int
	diags []string
}

func names(f int, cs []Cand) []item {
	out := make([]item, len(cs))
	for i, c := range cs {
		out[i] = item{fmt.Sprintf("sym%d", (f*7+i*13)%97), c}
	}
	return out
}

func (t *table) fold(file int, batch []item) {
	t.files = append(t.files, file)
	for _, it := range batch {
		ex, ok := t.syms[it.name]
		if !ok {
			t.syms[it.name] = NewSym(it.c)
			continue
		}
		o := Resolve(ex, it.c)
		for _, d := range o.Diags[:o.NDiag] {
			t.diags = append(t.diags, fmt.Sprintf("%s:%d:%d:%d", it.name, d.Code, d.File, d.First))
		}
		t.syms[it.name] = o.Sym
	}
}

func newTable(int) table { return table{syms: map[string]Sym{}} }

// serial is the reference: one table, files in order.
func serial(nfiles int) table {
	t := newTable(0)
	for f := range nfiles {
		t.fold(f, names(f, fakeFile(f)))
	}
	return t
}

func produceFake(nshards int, delay bool) func(int, func(int, []item)) error {
	return func(f int, emit func(int, []item)) error {
		if delay && f%3 == 0 {
			time.Sleep(time.Duration(f%5) * 100 * time.Microsecond)
		}
		items := names(f, fakeFile(f))
		var buckets [][]item
		for _, it := range items {
			s := ShardOf(Murmur3String(it.name), nshards)
			for len(buckets) <= s {
				buckets = append(buckets, nil)
			}
			buckets[s] = append(buckets[s], it)
		}
		// Emit in reverse to show the emit order does not matter.
		for s := len(buckets) - 1; s >= 0; s-- {
			if buckets[s] != nil {
				emit(s, buckets[s])
			}
		}
		return nil
	}
}

func TestFoldMatchesSerial(t *testing.T) {
	const nfiles = 60
	want := serial(nfiles)
	before := runtime.NumGoroutine()
	for _, nshards := range []int{1, 2, 3, 7, 64} {
		for workers := 1; workers <= 8; workers++ {
			states, err := Fold(context.Background(), nfiles, nshards, workers,
				produceFake(nshards, workers%2 == 0), newTable, (*table).fold)
			if err != nil {
				t.Fatalf("shards=%d workers=%d: %v", nshards, workers, err)
			}
			merged := map[string]Sym{}
			var diags []string
			for s, st := range states {
				if !slices.Equal(st.files, seq(nfiles)) {
					t.Fatalf("shards=%d workers=%d: shard %d folded files %v", nshards, workers, s, st.files)
				}
				for k, v := range st.syms {
					if ShardOf(Murmur3String(k), nshards) != s {
						t.Fatalf("%s folded by shard %d", k, s)
					}
					merged[k] = v
				}
				diags = append(diags, st.diags...)
			}
			if !reflect.DeepEqual(merged, want.syms) {
				t.Fatalf("shards=%d workers=%d: symbols differ from the serial fold", nshards, workers)
			}
			slices.Sort(diags)
			wd := slices.Clone(want.diags)
			slices.Sort(wd)
			if !slices.Equal(diags, wd) {
				t.Fatalf("shards=%d workers=%d: diagnostics differ:\n%q\n%q", nshards, workers, diags, wd)
			}
		}
	}
	if len(want.diags) == 0 || len(want.syms) < 20 {
		t.Fatalf("fake input too tame: %d symbols, %d diagnostics", len(want.syms), len(want.diags))
	}
	leakcheck.Wait(t, before)
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestFoldLowestErrorWins(t *testing.T) {
	before := runtime.NumGoroutine()
	for iter := range 50 {
		workers := 1 + iter%8
		_, err := Fold(context.Background(), 40, 4, workers,
			func(f int, emit func(int, []int)) error {
				switch f {
				case 5:
					time.Sleep(200 * time.Microsecond) // fails after file 9 does
					return fmt.Errorf("file %d", f)
				case 9, 30:
					return fmt.Errorf("file %d", f)
				}
				emit(f%4, []int{f})
				return nil
			},
			func(int) int { return 0 },
			func(s *int, f int, b []int) { *s++ })
		if err == nil || err.Error() != "file 5" {
			t.Fatalf("workers=%d: err = %v, want file 5", workers, err)
		}
	}
	leakcheck.Wait(t, before)
}

func TestFoldCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	for workers := 1; workers <= 4; workers++ {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := Fold(ctx, 1000, 3, workers,
			func(f int, emit func(int, []int)) error {
				if f == 17 {
					cancel()
				}
				emit(f%3, []int{f})
				return nil
			},
			func(int) int { return 0 },
			func(s *int, f int, b []int) { *s += len(b) })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("workers=%d: err = %v", workers, err)
		}
		cancel()
	}
	leakcheck.Wait(t, before)
}

func TestFoldEmitContract(t *testing.T) {
	// (Workers 1: the serial fold.)
	for _, workers := range []int{1, 3} {
		foldEmitContract(t, workers)
	}
}

func foldEmitContract(t *testing.T, workers int) {
	// Shards a producer skips still get one (empty) batch per file.
	states, err := Fold(context.Background(), 9, 5, workers,
		func(f int, emit func(int, []string)) error {
			if f%2 == 0 {
				emit(f%5, []string{fmt.Sprint(f)})
			}
			return nil
		},
		func(s int) []string { return nil },
		func(s *[]string, f int, b []string) { *s = append(*s, b...) })
	if err != nil {
		t.Fatal(err)
	}
	for s, st := range states {
		var want []string
		for f := 0; f < 9; f += 2 {
			if f%5 == s {
				want = append(want, fmt.Sprint(f))
			}
		}
		if !slices.Equal(st, want) {
			t.Errorf("shard %d: %q, want %q", s, st, want)
		}
	}
	calls, err := Fold(context.Background(), 6, 3, workers,
		func(f int, emit func(int, []int)) error { emit(0, nil); return nil },
		func(int) int { return 0 },
		func(s *int, f int, b []int) { *s++ })
	if err != nil || !slices.Equal(calls, []int{6, 6, 6}) {
		t.Fatalf("fold calls per shard = %v, %v; want 6 each", calls, err)
	}

	for _, bad := range []func(emit func(int, []int)){
		func(emit func(int, []int)) { emit(1, nil); emit(1, nil) },
		func(emit func(int, []int)) { emit(3, nil) },
		func(emit func(int, []int)) { emit(-1, nil) },
	} {
		_, err := Fold(context.Background(), 4, 3, workers,
			func(f int, emit func(int, []int)) error {
				if f == 2 {
					bad(emit)
				}
				return nil
			},
			func(int) int { return 0 }, func(*int, int, []int) {})
		if err == nil {
			t.Errorf("misuse not reported")
		}
	}

	if st, err := Fold(context.Background(), 0, 2, 4,
		func(int, func(int, []int)) error { return errors.New("called") },
		func(s int) int { return s + 10 }, func(*int, int, []int) {}); err != nil || !slices.Equal(st, []int{10, 11}) {
		t.Errorf("no files: %v, %v", st, err)
	}
	if _, err := Fold(context.Background(), 3, 0, 1,
		func(int, func(int, []int)) error { return nil },
		func(int) int { return 0 }, func(*int, int, []int) {}); err == nil {
		t.Errorf("zero shards accepted")
	}
}

func BenchmarkFold(b *testing.B) {
	const nfiles, perFile, nshards = 256, 2000, 16
	type sym struct {
		hash uint32
		file int32
	}
	hashes := make([][]uint32, nfiles)
	for f := range hashes {
		hashes[f] = make([]uint32, perFile)
		for i := range hashes[f] {
			hashes[f][i] = Murmur3String(fmt.Sprintf("_Z3fn%di", (f*perFile+i)%50000))
		}
	}
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprint("workers=", workers), func(b *testing.B) {
			for b.Loop() {
				_, err := Fold(context.Background(), nfiles, nshards, workers,
					func(f int, emit func(int, []sym)) error {
						buckets := make([][]sym, nshards)
						for _, h := range hashes[f] {
							s := ShardOf(h, nshards)
							buckets[s] = append(buckets[s], sym{h, int32(f)})
						}
						for s, bk := range buckets {
							emit(s, bk)
						}
						return nil
					},
					func(int) map[uint32]int32 { return map[uint32]int32{} },
					func(m *map[uint32]int32, f int, batch []sym) {
						for _, s := range batch {
							if _, ok := (*m)[s.hash]; !ok {
								(*m)[s.hash] = s.file
							}
						}
					})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
