// Command sharedprog writes random shared-memory CUDA programs (package
// internal/testkit/sharedprog) for bench/gpu/sharedcheck.sh: one folder per seed,
// seed<N>/f<K>.cu, programs that run as cubinrun runs kernels (-gpu, the
// default) or those of make fuzz-shared (-gpu=false).
//
//	sharedprog -o DIR [-n 30] [-from 1] [-gpu]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/warplink/warplink/internal/testkit/sharedprog"
)

func main() {
	out := flag.String("o", "", "folder to write the programs into")
	n := flag.Int("n", 30, "number of programs")
	from := flag.Int("from", 1, "first seed")
	gpu := flag.Bool("gpu", true, "programs cubinrun can run (no extern shared memory, no races)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "sharedprog: -o DIR is required")
		os.Exit(2)
	}
	for seed := *from; seed < *from+*n; seed++ {
		dir := filepath.Join(*out, fmt.Sprintf("seed%d", seed))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "sharedprog:", err)
			os.Exit(1)
		}
		files, _ := sharedprog.Generate(uint64(seed), *gpu)
		for k, src := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.cu", k)), []byte(src), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "sharedprog:", err)
				os.Exit(1)
			}
		}
	}
}
