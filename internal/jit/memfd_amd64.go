//go:build linux

package jit

const sysMemfdCreate = 319 // memfd_create on linux/amd64
