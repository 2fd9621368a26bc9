//go:build !linux

package main

import "os"

// maxRSS is not measured on this system.
func maxRSS(ps *os.ProcessState) int64 { return 0 }

// raiseStackLimit does nothing on this system.
func raiseStackLimit() {}

// closeInherited does nothing on this system.
func closeInherited() {}
