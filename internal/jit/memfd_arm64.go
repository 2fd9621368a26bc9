//go:build linux

package jit

const sysMemfdCreate = 279 // memfd_create on linux/arm64
