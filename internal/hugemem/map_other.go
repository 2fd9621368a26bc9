//go:build !linux

package hugemem

func mapAnon(size, small, huge int) ([]byte, bool) { return nil, false }

func mapZeros(size int) ([]byte, bool) { return nil, false }

func unmap(m []byte) {}
