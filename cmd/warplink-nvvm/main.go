// Command warplink-nvvm is warplink's libnvvm helper: it loads the CUDA
// toolkit's libnvvm, adds the NVVM IR modules of a -dlto link as nvlink
// 11.8 does and compiles them to PTX. warplink starts it only for a link
// that needs libnvvm, and talks to it through package nvvmproto: a request
// on standard input, a reply on standard output. It is a program of its
// own so that warplink stays one static executable and a crash inside
// libnvvm ends this process, not the link (docs/design.md).
package main

import (
	"fmt"
	"os"

	"github.com/warplink/warplink/internal/nvvmproto"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-check" {
		// warplink-nvvm -check NVVMPATH: print the libnvvm a request
		// would load (tests skip without one).
		l, err := load(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "warplink-nvvm:", err)
			os.Exit(1)
		}
		fmt.Println(l.path)
		return
	}
	req, err := nvvmproto.ReadRequest(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "warplink-nvvm:", err)
		os.Exit(2)
	}
	if err := nvvmproto.WriteReply(os.Stdout, compile(req)); err != nil {
		fmt.Fprintln(os.Stderr, "warplink-nvvm:", err)
		os.Exit(2)
	}
}
