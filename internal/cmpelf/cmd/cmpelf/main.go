// Command cmpelf compares two cubins structurally or dumps one; see
// package cmpelf.
package main

import (
	"os"

	"github.com/warplink/warplink/internal/cmpelf"
)

func main() { os.Exit(cmpelf.Main(os.Args[1:], os.Stdout, os.Stderr)) }
