//go:build !linux || !(amd64 || arm64)

package jit

import (
	"os"
	"os/exec"
)

// ptxSource holds the PTX ptxas reads: a temporary file, removed by
// cleanup (f is nil: ptxas opens the file by name).
func ptxSource(ptx []byte) (f *os.File, name string, cleanup func(), err error) {
	return tempSource(ptx)
}

// dieWithParent is Linux's parent-death signal; elsewhere there is none.
func dieWithParent(cmd *exec.Cmd) {}
