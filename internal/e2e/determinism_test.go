package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/warplink/warplink/internal/cmpelf"
	"github.com/warplink/warplink/merge"
)

// TestDeterminism links the same inputs under GOMAXPROCS 1, 2, 3 and 16 and
// several shard counts, reading the inputs with io_uring or without or
// mapping them (Options.MapFrom), with
// merge's string-table additions queued to another goroutine or made on
// the spot (Options.StrQueueMin), and requires byte-identical outputs.
func TestDeterminism(t *testing.T) {
	for _, prog := range []string{"weakregs", "shared", "cdp", "globals"} {
		dir, _ := filepath.Abs(filepath.Join(corpusDir, prog))
		t.Run(prog, func(t *testing.T) {
			var first []byte
			old := runtime.GOMAXPROCS(0)
			defer runtime.GOMAXPROCS(old)
			for _, procs := range []int{1, 2, 3, 16} {
				for _, shards := range []int{1, 3, 16, 64} {
					runtime.GOMAXPROCS(procs)
					out := filepath.Join(t.TempDir(), "out.cubin")
					opts := linkArgs(t, dir, "link_dc.args", out)
					opts.Shards = shards
					opts.NoRing = shards%2 == 1         // (input.Ring where there is one)
					opts.MapFrom = int64(procs%2*2 - 1) // every input mapped (1) or read (-1)
					opts.StrQueueMin = 1                // (queued where GOMAXPROCS > 1)
					if shards == 3 {
						opts.StrQueueMin = -1 // (on the spot)
					}
					got := linkedBytes(t, opts, fmt.Sprintf("GOMAXPROCS=%d shards=%d", procs, shards))
					if first == nil {
						first = got
					} else if !bytes.Equal(first, got) {
						t.Fatalf("GOMAXPROCS=%d shards=%d: output differs from GOMAXPROCS=1 shards=1", procs, shards)
					}
				}
			}
		})
	}
}

// TestWriteChunk links corpus programs with the write pass's runs made
// tiny, so that every run reuses a buffer that held earlier bytes of the
// file, and requires the bytes of the default. With libcudadevrt kept,
// .nv.global.init has alignment gaps between its pieces, which the fill
// must clear.
func TestWriteChunk(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"globals", "managed", "printf", "cdp", "weakregs", "debug"} {
		dir, _ := filepath.Abs(filepath.Join(corpusDir, prog))
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			for _, keep := range []bool{false, true} {
				var first []byte
				for _, chunk := range []int{0, 64, 100, 4096} {
					out := filepath.Join(t.TempDir(), "out.cubin")
					opts := linkArgs(t, dir, "link_dc.args", out)
					if keep {
						opts.LibDirs = append(opts.LibDirs, libdir)
						opts.Inputs = append(opts.Inputs, "-lcudadevrt")
						opts.KeepSystemLibraries = true
					}
					opts.WriteChunk = chunk
					got := linkedBytes(t, opts, fmt.Sprintf("keep=%v chunk=%d", keep, chunk))
					if first == nil {
						first = got
					} else if !bytes.Equal(first, got) {
						rep, _ := cmpelf.Compare(got, first)
						t.Errorf("keep=%v chunk=%d: output differs from the default chunk's: %v", keep, chunk, firstN(rep.Diffs, 3))
					}
				}
			}
		})
	}
}

// linkedBytes links opts with merge.Link, failing the test (named by what)
// unless it succeeds, and returns the output file's bytes.
func linkedBytes(t *testing.T, opts *merge.Options, what string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	if rc := merge.Link(opts, &bytes.Buffer{}, &stderr, "nvlink"); rc != 0 {
		t.Fatalf("%s: exit %d: %s", what, rc, stderr.String())
	}
	b, err := os.ReadFile(opts.Output)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
