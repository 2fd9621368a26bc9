// Package testkit holds what the tests share and the linker never
// imports: leakcheck (no goroutine left behind), toolkit (which CUDA
// release an installed tool is) and sharedprog (random shared-memory
// programs for make fuzz-shared and the GPU check).
package testkit
