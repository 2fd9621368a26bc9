package shard

import "math/bits"

// Murmur3 returns MurmurHash3_x86_32 of name with seed 0, the string hash
// nvlink uses for its symbol and section name tables. It does not allocate.
func Murmur3(name []byte) uint32 { return murmur3(name, 0) }

// Murmur3String is Murmur3 for a string, without converting it.
func Murmur3String(name string) uint32 { return murmur3(name, 0) }

// murmur3 is Austin Appleby's MurmurHash3_x86_32 over a string or byte
// slice, little-endian block reads.
func murmur3[T ~string | ~[]byte](data T, seed uint32) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := seed
	n := len(data)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch n - i {
	case 3:
		k ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[i])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
