//go:build !linux || !amd64

package jit

import (
	"errors"
	"os"
)

// zygote is the zygote server (zygote_linux_amd64.go); elsewhere there is
// none and every ptxas runs as a process of its own.
type zygote struct{}

func newZygote() *zygote { return nil }

func (z *zygote) close() {}

func (z *zygote) fork(path string, args []string, ptx, out, msgs *os.File) (int, [2][]byte, error) {
	return 0, [2][]byte{}, errors.New("no zygote")
}

// waitChild is not used without a zygote.
func waitChild(pid int) error { return errors.New("no zygote") }
