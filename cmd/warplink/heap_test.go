package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/warplink/warplink/bench/gen"
	"github.com/warplink/warplink/internal/hugemem"
	"github.com/warplink/warplink/internal/linkflags"
	"github.com/warplink/warplink/merge"
)

// TestSizeHeap checks the heap settings heapSizer.size makes, as
// properties: the soft limit leaves room above the input, grows with it
// (on either side of smallHeapBelow, below which it leaves more room), and
// is larger when the inputs are on the heap too; the limit alone runs the
// collector at every size.
func TestSizeHeap(t *testing.T) {
	defaultHeapSettings(t)
	size := func(input int64, onHeap bool) (limit int64, gcPercent int) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		(&heapSizer{adviseHeap: func(int, bool) bool { return true }}).size(input, onHeap)
		return debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	}
	var last int64
	for _, input := range []int64{0, 1 << 20, smallHeapBelow - 1, smallHeapBelow, 100 << 20, 1 << 30} {
		limit, gc := size(input, false)
		if input == smallHeapBelow {
			last = 0 // (less room from here)
		}
		if limit <= input || limit <= last {
			t.Errorf("input %d: limit %d, want more than the input and than the smaller input's %d", input, limit, last)
		}
		last = limit
		if onHeap, _ := size(input, true); onHeap <= limit && input > 0 {
			t.Errorf("input %d: limit %d with the inputs on the heap, want more than %d", input, onHeap, limit)
		}
		if gc != -1 {
			t.Errorf("input %d: GOGC %d, want -1 (the limit alone)", input, gc)
		}
	}
}

// TestPassDoneCollects checks that a link, whose collector size leaves to
// the memory limit, is collected once after each pass collectAfter names
// (read, merge, relocate and finalize: from behindFinalizeFrom below
// largeCollectFrom that one on another goroutine), after dce too from
// largeCollectFrom, and no other; that
// a heap that got no advice returns its free pages instead after those
// returnAfter names (merge and relocate: a collection too), and a large
// link's after returnLargeAfter (resolve); and that a
// link under a GOGC the user set, which runs GOGC's collections, is
// neither collected nor returned by passDone.
func TestPassDoneCollects(t *testing.T) {
	defaultHeapSettings(t)
	passes := []string{"read", "resolve", "merge", "dce", "layout", "relocate", "finalize", "write"}
	for _, r := range returnAfter {
		if !slices.Contains(collectAfter, r) {
			t.Errorf("returnAfter's %s is not in collectAfter", r)
		}
	}
	for _, c := range []struct {
		input        int64
		noAdvice     bool
		gcs, returns int
	}{
		{1 << 20, false, len(collectAfter), 0},
		{1 << 20, true, len(collectAfter) - len(returnAfter), len(returnAfter)},
		{smallHeapBelow - 1, false, len(collectAfter), 0},
		{smallHeapBelow - 1, true, len(collectAfter) - len(returnAfter), len(returnAfter)},
		{behindFinalizeFrom - 1, false, len(collectAfter), 0},
		{smallHeapBelow, false, len(collectAfter), 0}, // (finalize's behind order)
		{largeCollectFrom - 1, false, len(collectAfter), 0},
		{200 << 20, false, len(collectAfter) + 1, 1}, // (and after dce; returned after resolve)
		{200 << 20, false, 0, 0},                     // (GOGC set: gogc below)
	} {
		gogc := c.input == 200<<20 && c.gcs == 0
		if gogc {
			t.Setenv("GOGC", "100")
		}
		gcs, returns, behinds := 0, 0, 0
		h := &heapSizer{adviseHeap: func(int, bool) bool { return true }, collect: func() { gcs++ }, freeOS: func() { returns++ }, noAdvice: c.noAdvice,
			behind: func(collect func()) { behinds++; collect() }}
		h.size(c.input, false)
		for _, p := range passes {
			g, r := gcs, returns
			h.passDone(p)
			if gcs != g && !slices.Contains(collectAfter, p) && (p != "dce" || c.input < largeCollectFrom) {
				t.Errorf("input %d: collected after %s", c.input, p)
			}
			if returns != r && !slices.Contains(returnAfter, p) && (p != returnLargeAfter || c.input < largeCollectFrom) {
				t.Errorf("input %d: free pages returned after %s", c.input, p)
			}
			if gcs != g && returns != r {
				t.Errorf("input %d: both after %s", c.input, p)
			}
		}
		middle := c.input >= behindFinalizeFrom && c.input < largeCollectFrom && !gogc
		if want := map[bool]int{true: 1}[middle]; behinds != want {
			t.Errorf("input %d: %d collections behind the passes, want %d (after finalize)", c.input, behinds, want)
		}
		if gcs != c.gcs || returns != c.returns {
			t.Errorf("input %d, noAdvice %v: %d collections and %d returns after the passes, want %d and %d", c.input, c.noAdvice, gcs, returns, c.gcs, c.returns)
		}
	}
}

// TestLaterAdvice checks that the advice after read tops the early advice
// up to the limit, never past it, and gives none when the early advice
// covers it.
func TestLaterAdvice(t *testing.T) {
	for _, limit := range []int64{0, 30 << 20, minEarlyAdvice, 100 << 20, 1 << 32} {
		for _, advised := range []int{0, minEarlyAdvice, 200 << 20} {
			got := laterAdvice(limit, advised)
			if got < 0 || int64(advised+got) < limit && got != 0 && int64(advised+got) != limit {
				t.Errorf("laterAdvice(%d, %d) = %d", limit, advised, got)
			}
			if covered := int64(advised) >= limit; covered != (got == 0) {
				t.Errorf("laterAdvice(%d, %d) = %d: advice wanted only when the limit is not covered", limit, advised, got)
			}
			if got > 0 && int64(advised+got) != limit {
				t.Errorf("laterAdvice(%d, %d) = %d: the advised ranges should add up to the limit", limit, advised, got)
			}
		}
	}
}

// adviceBounds checks the early advice's bounds and returns the inputs
// TestHeapAdvice needs: big, an input past the early range, and its
// limit; many, the early advice for 50,000 inputs; covered, the least
// input whose limit the early range (for 1,000 inputs) does not cover
// (limitFor grows with the input).
func adviceBounds(t *testing.T) (big int64, bigLimit, many int, covered int64) {
	const early = minEarlyAdvice // the early advice for 1,000 inputs
	big = 200 << 20
	bigLimit = int(limitFor(big))
	many = earlyAdvice(50000)
	if early != earlyAdvice(1000) || many <= early || many >= bigLimit {
		t.Fatalf("early advice %d for 1,000 inputs, %d for 50,000", earlyAdvice(1000), many)
	}
	if got := earlyAdvice(1 << 30); got != hugemem.MaxHeapAdvice {
		t.Errorf("early advice %d for 2^30 inputs, want the cap %d", got, hugemem.MaxHeapAdvice)
	}
	covered = int64(sort.Search(early, func(n int) bool { return limitFor(int64(n)) > early }))
	if covered == 0 || covered == early {
		t.Fatalf("the early range %d covers no input, or every one", early)
	}
	return big, bigLimit, many, covered
}

// TestHeapAdvice checks what heapSizer asks hugemem.AdviseHeap for: the
// early range unless the inputs go onto the heap, then the rest of the
// limit, or all of it when the early advice was refused, and nothing when
// the inputs are on the heap; the early range grows with the input
// count; only the early advice takes the heap's memory below the range.
// It also checks the collector: one collection right after the
// early advice (to hand the range back), off from advise until read has
// loaded the input the range covers, or until size, then off for good
// (the limit alone), or GOGC again after release when size never ran or
// GOGC is set; on at once
// when the advice is refused or GOGC is set. While it is off, a memory
// limit guards the range (unless a lower one is set); afterwards the
// limit is the one found, or size's.
func TestHeapAdvice(t *testing.T) {
	defaultHeapSettings(t)
	const early = minEarlyAdvice
	big, bigLimit, many, covered := adviceBounds(t)
	const found = int64(1 << 40) // the memory limit before advise
	// The limits after read's reports: a guard while the collector is
	// paused (above the advised range, so that read's input fills it,
	// below twice it and below the limit found), or the limit found, or
	// a lower limit the user set (at the range: below any guard).
	const (
		guardLimit = iota
		foundLimit
		lowerLimit
	)
	guards := map[int]int64{} // the guard, by input count
	for _, c := range []struct {
		name       string
		plain      bool // inputs read onto the heap
		refuse     bool // AdviseHeap refuses
		gogc       bool // GOGC is set
		lowLimit   bool // a memory limit below the guard is set (early)
		inputs     int
		loaded     int64 // what read reports loaded (by 8 goroutines at once)
		input      int64 // what size is told (-1: the link stops in read)
		wantAsks   []int
		wantGCs    int // collections advise asked for
		wantInRead int // GOGC after read's reports
		wantLimit  int // the memory limit then: guardLimit, foundLimit or lowerLimit
		wantAfter  int // GOGC after size (or release)
	}{
		{"small link", false, false, false, false, 1000, 4 << 20, 4 << 20, []int{early}, 1, -1, guardLimit, -1},
		{"large link", false, false, false, false, 1000, 40 << 20, big, []int{early, bigLimit - early}, 1, -1, guardLimit, -1},
		{"read past the range", false, false, false, false, 1000, covered, big, []int{early, bigLimit - early}, 1, 100, foundLimit, -1},
		{"many inputs", false, false, false, false, 50000, covered, big, []int{many, bigLimit - many}, 1, -1, guardLimit, -1},
		{"refused early advice", false, true, false, false, 1000, 40 << 20, big, []int{early, bigLimit}, 0, 100, foundLimit, -1},
		{"inputs on the heap", true, false, false, false, 1000, 40 << 20, big, nil, 0, 100, foundLimit, -1},
		{"GOGC set", false, false, true, false, 1000, 4 << 20, 4 << 20, []int{early}, 1, 100, foundLimit, 100},
		{"lower limit set", false, false, false, true, 1000, 4 << 20, -1, []int{early}, 1, -1, lowerLimit, 100},
		{"stopped in read", false, false, false, false, 1000, 1 << 20, -1, []int{early}, 1, -1, guardLimit, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.gogc {
				t.Setenv("GOGC", "100")
			}
			before := found
			if c.lowLimit {
				before = int64(early)
			}
			debug.SetGCPercent(100)
			debug.SetMemoryLimit(before)
			var asks []int
			gcs := 0
			h := &heapSizer{
				adviseHeap: func(n int, below bool) bool {
					asks = append(asks, n)
					if below != (len(asks) == 1) {
						t.Errorf("advice %d asks below %v: only the first may", len(asks), below)
					}
					return !c.refuse
				},
				collect: func() { gcs++ },
			}
			h.advise(c.plain, c.inputs)
			var wg sync.WaitGroup
			for range 8 { // read's goroutines report at once (run under -race)
				wg.Add(1)
				go func() { defer wg.Done(); h.reading(c.loaded) }()
			}
			wg.Wait()
			if got := gcPercent(); got != c.wantInRead {
				t.Errorf("GOGC %d after read's reports, want %d", got, c.wantInRead)
			}
			switch got := debug.SetMemoryLimit(-1); c.wantLimit {
			case guardLimit:
				if n := int64(asks[0]); got <= n || got >= 2*n || got >= found {
					t.Errorf("memory limit %d after read's reports, want a guard above the advised %d, below twice it and below %d", got, n, found)
				}
				guards[c.inputs] = got
			case foundLimit, lowerLimit:
				if got != before {
					t.Errorf("memory limit %d after read's reports, want the one set before (%d)", got, before)
				}
			}
			if c.input >= 0 {
				h.size(c.input, c.plain)
				got := debug.SetMemoryLimit(-1)
				if want, _ := sizeSets(c.input, c.plain); got != want {
					t.Errorf("memory limit %d after size, want %d, the one size sets for that input alone", got, want)
				}
			}
			h.release()
			if got := debug.SetMemoryLimit(-1); c.input < 0 && got != before {
				t.Errorf("memory limit %d after release, want %d", got, before)
			}
			if !slices.Equal(asks, c.wantAsks) {
				t.Errorf("advised %v, want %v", asks, c.wantAsks)
			}
			if gcs != c.wantGCs {
				t.Errorf("%d collections, want %d", gcs, c.wantGCs)
			}
			if got := gcPercent(); got != c.wantAfter {
				t.Errorf("GOGC %d after read, want %d", got, c.wantAfter)
			}
		})
	}
	if guards[50000] <= guards[1000] {
		t.Errorf("guard %d for the range of 50,000 inputs, %d for 1,000: want it larger", guards[50000], guards[1000])
	}
}

// sizeSets is the memory limit and GOGC setting heapSizer.size leaves
// for input bytes (counted as on the heap or not) under the present
// settings; it puts those settings back.
func sizeSets(input int64, onHeap bool) (limit int64, gc int) {
	oldPercent, oldLimit := gcPercent(), debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}()
	(&heapSizer{adviseHeap: func(int, bool) bool { return true }, collect: func() {}, freeOS: func() {}}).size(input, onHeap)
	return debug.SetMemoryLimit(-1), gcPercent()
}

// gcPercent is the collector's GOGC setting (-1: off).
func gcPercent() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

// defaultHeapSettings skips the test when GOGC or GOMEMLIMIT is set (the
// heap settings then follow them), else starts it from the runtime's
// defaults and restores the settings afterwards.
func defaultHeapSettings(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set")
	}
	oldPercent := debug.SetGCPercent(100)
	oldLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
}

// TestLinkHeapSettings links about 1,000 generated objects (4.3 MB: not a
// light link, but below adviceFrom: no advice), 3,000 (past adviceFrom: advised
// once the command line is parsed) and the same 3,000 on a command line
// of more than largeArgs arguments (-L options added: advised before it
// is parsed), through run, as the command does (advice, read's pause,
// size, release), under the heap settings a user may set, and checks the
// outputs are the same bytes whatever the settings and the advice, and
// that the collector and memory limit are left as heapSizer.size, given
// the same input, sets them (run may be called more than once in a
// process): the user's GOMEMLIMIT kept, and with the inputs on the heap
// (WARPLINK_HUGEPAGES=0) a higher limit than without.
func TestLinkHeapSettings(t *testing.T) {
	defaultHeapSettings(t)
	firsts := map[int][]byte{} // the default settings' output, by workload
	for _, c := range []struct {
		n   int
		pad int // -L options added to the command line
	}{{1000, 0}, {3000, 0}, {3000, largeArgs}} {
		w := generated(t, c.n)
		if _, ok, _ := lightLink(&merge.Options{Flags: linkflags.Flags{Inputs: w.inputs}}); ok {
			t.Fatalf("%d bytes: want a link past lightBytes", w.size)
		}
		args := append([]string{"warplink", "-arch=" + gen.Arch, "-o", ""}, w.inputs...)
		for range c.pad {
			args = append(args, "-L"+filepath.Dir(w.inputs[0]))
		}
		early, advised := len(args)-1 > largeArgs, inputEstimate(&merge.Options{Flags: linkflags.Flags{Inputs: w.inputs}}, fileSize) >= adviceFrom
		if early != (c.pad > 0) || advised != (c.n >= 3000) {
			t.Fatalf("%d objects (%d bytes), %d more arguments: early advice %v, advice %v", c.n, w.size, c.pad, early, advised)
		}
		limits := map[string]int64{}
		for _, env := range [][2]string{{"", ""}, {"GOGC", "50"}, {"GOMEMLIMIT", "32MiB"}, {"WARPLINK_HUGEPAGES", "0"}} {
			t.Run(fmt.Sprintf("%d+%d/%s=%s", c.n, c.pad, env[0], env[1]), func(t *testing.T) {
				if env[0] != "" {
					t.Setenv(env[0], env[1])
				}
				onHeap := env[0] == "WARPLINK_HUGEPAGES"
				debug.SetGCPercent(100)
				debug.SetMemoryLimit(1 << 40)
				out := filepath.Join(t.TempDir(), "out.cubin")
				args[3] = out
				if _, errs, code := runArgs(args...); code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if firsts[c.n] == nil {
					firsts[c.n] = got
				} else if !bytes.Equal(got, firsts[c.n]) {
					t.Errorf("output differs from the default settings' (%d bytes against %d)", len(got), len(firsts[c.n]))
				}
				// size leaves its limit for the rest of the process (and a
				// small link's collector off, unless GOGC is set); nothing
				// of read's pause may remain.
				limit, gc := debug.SetMemoryLimit(-1), gcPercent()
				limits[env[0]] = limit
				debug.SetGCPercent(100)
				debug.SetMemoryLimit(1 << 40)
				wantLimit, wantGC := sizeSets(w.size, onHeap)
				if limit != wantLimit || gc != wantGC {
					t.Errorf("memory limit %d, GOGC %d after the link; size sets %d, %d", limit, gc, wantLimit, wantGC)
				}
				if env[0] == "GOMEMLIMIT" && limit != 1<<40 {
					t.Errorf("memory limit %d, want the one set before (%d)", limit, int64(1<<40))
				}
				if onHeap && limit <= limits[""] {
					t.Errorf("memory limit %d with the inputs on the heap, want more than %d", limit, limits[""])
				}
			})
		}
	}
}

// TestLightLink checks which links count as light: inputs (libraries
// looked up in the -L folders, or skipped when not found, as read does)
// that add up to less than lightBytes; a missing input counts as nothing
// (read reports it). A link is serial when its inputs other than
// libraries add up to less than serialBytes (which matters only when it is
// light).
func TestLightLink(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, n int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small, mid, big := file("small.cubin", 4<<10), file("mid.o", serialBytes), file("big.cubin", lightBytes)
	file("libsmall.a", 4<<10)
	file("libmid.a", serialBytes)
	file("libbig.a", lightBytes)
	many := make([]string, lightBytes/(4<<10))
	for i := range many {
		many[i] = small
	}
	for _, c := range []struct {
		name          string
		inputs        []string
		light, serial bool
	}{
		{"three small", []string{small, small, small}, true, true},
		{"lightBytes", []string{big}, false, false},
		{"many small adding up to lightBytes", many, false, false},
		{"fewer of them", many[1:], true, false},
		{"a missing input", []string{small, filepath.Join(dir, "missing.cubin")}, true, true},
		{"a small library", []string{small, "-lsmall"}, true, true},
		{"a library not found", []string{small, "-lnone"}, true, true},
		{"a large library", []string{small, "-lbig"}, false, true},
		{"a library of serialBytes", []string{small, "-lmid"}, true, true},
		{"an object of serialBytes", []string{small, mid}, true, false},
	} {
		o := &merge.Options{Flags: linkflags.Flags{Inputs: c.inputs, LibDirs: []string{dir}}}
		if _, light, serial := lightLink(o); light != c.light || serial != c.serial {
			t.Errorf("%s: light %v, serial %v; want %v, %v", c.name, light, serial, c.light, c.serial)
		}
		if len(o.Inputs) != len(c.inputs) {
			t.Errorf("%s: the inputs changed", c.name)
		}
	}
}

// TestLight checks what light sets up, and that what it returns puts the
// collector's settings back: the inputs on the heap without a ring; one
// thread unless --warplink-threads chose, and one reader too below
// serialBytes (past it, the pclntab dropped again after read: PassDone);
// write's runs of lightWriteChunk; the collector
// off under a memory limit with room for the inputs, unless GOGC or
// GOMEMLIMIT is set.
func TestLight(t *testing.T) {
	defaultHeapSettings(t)
	for _, c := range []struct {
		name         string
		est          int64
		threads      int // --warplink-threads
		env          string
		wantThreads  int
		wantReaders  int  // Options.JITWorkers (0: as the caller set it)
		collectorSet bool // the collector left as it was
		wantPassDone bool // Options.PassDone set
	}{
		{"tiny", 10 << 10, 0, "", 1, 1, false, false},
		{"past serialBytes", serialBytes, 0, "", 1, 0, false, true},
		{"threads chosen", 10 << 10, 4, "", 4, 0, false, false},
		{"GOGC set", 10 << 10, 0, "GOGC", 1, 1, true, false},
		{"GOMEMLIMIT set", 10 << 10, 0, "GOMEMLIMIT", 1, 1, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv(c.env, map[string]string{"GOGC": "100", "GOMEMLIMIT": "1GiB"}[c.env])
			}
			limit := debug.SetMemoryLimit(-1)
			o := merge.Options{Warplink: linkflags.Warplink{Threads: c.threads}}
			restore := light(&o, c.est, c.est < serialBytes)
			if !o.PlainMemory || !o.NoRing || o.Threads != c.wantThreads || o.MapFrom != lightMapFrom {
				t.Errorf("PlainMemory %v, NoRing %v, Threads %d, MapFrom %d: want both, %d and %d", o.PlainMemory, o.NoRing, o.Threads, o.MapFrom, c.wantThreads, lightMapFrom)
			}
			if o.JITWorkers != c.wantReaders {
				t.Errorf("JITWorkers %d, want %d", o.JITWorkers, c.wantReaders)
			}
			if o.WriteChunk != lightWriteChunk {
				t.Errorf("WriteChunk %d, want %d", o.WriteChunk, lightWriteChunk)
			}
			if (o.PassDone != nil) != c.wantPassDone {
				t.Errorf("PassDone set %v, want %v", o.PassDone != nil, c.wantPassDone)
			} else if o.PassDone != nil {
				o.PassDone("read") // (the tables' pages dropped: the test goes on)
			}
			if got := gcPercent(); (got >= 0) != c.collectorSet {
				t.Errorf("GOGC %d", got)
			}
			if got := debug.SetMemoryLimit(-1); !c.collectorSet && got < 3*c.est {
				t.Errorf("memory limit %d: no room for %d bytes of input on the heap", got, c.est)
			}
			restore()
			if got := gcPercent(); got != 100 {
				t.Errorf("GOGC %d after, want 100", got)
			}
			if got := debug.SetMemoryLimit(-1); got != limit {
				t.Errorf("memory limit %d after, want %d", got, limit)
			}
		})
	}
}

// TestLightLinkRun links the corpus's xcall (three objects: a light link)
// through run: nvlink's bytes, and the process's settings as they were.
func TestLightLinkRun(t *testing.T) {
	defaultHeapSettings(t)
	dir := filepath.Join("..", "..", "testdata", "corpus", "cuda11.8-sm_90", "xcall")
	ref, err := os.ReadFile(filepath.Join(dir, "ref.cubin"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"warplink", "-arch=sm_90", "-o", filepath.Join(t.TempDir(), "out.cubin")}
	for _, n := range []string{"a.cubin", "b.cubin", "c.cubin"} {
		args = append(args, filepath.Join(dir, n))
	}
	if _, ok, _ := lightLink(&merge.Options{Flags: linkflags.Flags{Inputs: args[4:]}}); !ok {
		t.Fatal("xcall should be a light link")
	}
	procs, limit := runtime.GOMAXPROCS(0), debug.SetMemoryLimit(-1)
	if _, errs, code := runArgs(args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if got, _ := os.ReadFile(args[3]); !bytes.Equal(got, ref) {
		t.Errorf("output differs from nvlink's (%d bytes against %d)", len(got), len(ref))
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after the link, want %d", got, procs)
	}
	if gcPercent() != 100 || debug.SetMemoryLimit(-1) != limit {
		t.Errorf("collector settings changed by the link")
	}
}

// TestPagesFor checks which links go without heap advice and which keep
// the arenas in small pages: below adviceFrom both, up to smallPagesBelow
// small pages only, from there neither; a link advised before its command
// line was parsed (mayAdvise false) small pages only, by the same bound.
func TestPagesFor(t *testing.T) {
	cases := []struct {
		est                  int64
		mayAdvise            bool
		noAdvice, smallPages bool
	}{
		{0, true, true, true},
		{adviceFrom - 1, true, true, true},
		{adviceFrom, true, false, true},
		{smallPagesBelow - 1, true, false, true},
		{smallPagesBelow, true, false, false},
		{1 << 30, true, false, false},
		{1 << 20, false, false, true},
		{smallPagesBelow - 1, false, false, true},
		{smallPagesBelow, false, false, false},
	}
	for _, c := range cases {
		noAdvice, smallPages := pagesFor(c.est, c.mayAdvise)
		if noAdvice != c.noAdvice || smallPages != c.smallPages {
			t.Errorf("pagesFor(%d, %v) = %v, %v; want %v, %v", c.est, c.mayAdvise, noAdvice, smallPages, c.noAdvice, c.smallPages)
		}
	}
	if adviceFrom >= smallPagesBelow {
		t.Errorf("adviceFrom %d not below smallPagesBelow %d", adviceFrom, smallPagesBelow)
	}
}
