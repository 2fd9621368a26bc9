package shard

import "testing"

func TestMurmur3Vectors(t *testing.T) {
	// The first four are the values the nvlink walkthrough seed lists for
	// sub_44E000; the rest are the widely published reference vectors.
	tests := []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"main_kernel", 0, 0xC65D92BC},
		{"helper_fn", 0, 0x3BA6AA63},
		{"__nv_sqrt", 0, 0xBCFBED0E},
		{"my_kernel", 0, 0xB294C63C},
		{"", 0, 0},
		{"", 1, 0x514E28B7},
		{"", 0xffffffff, 0x81F16F39},
		{"\xff\xff\xff\xff", 0, 0x76293B50},
		{"!Ce\x87", 0, 0xF55B516B},
		{"!Ce\x87", 0x5082EDEE, 0x2362F9DE},
		{"!Ce", 0, 0x7E4A8634},
		{"!C", 0, 0xA0F7B07A},
		{"!", 0, 0x72661CF4},
		{"\x00\x00\x00\x00", 0, 0x2362F9DE},
		{"\x00\x00\x00", 0, 0x85F0B427},
		{"\x00\x00", 0, 0x30F4C306},
		{"\x00", 0, 0x514E28B7},
		{"aaaa", 0x9747b28c, 0x5A97808A},
		{"Hello, world!", 0x9747b28c, 0x24884CBA},
		{"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2FA826CD},
	}
	for _, tt := range tests {
		if got := murmur3(tt.in, tt.seed); got != tt.want {
			t.Errorf("murmur3(%q, %#x) = %#08x, want %#08x", tt.in, tt.seed, got, tt.want)
		}
		if got := murmur3([]byte(tt.in), tt.seed); got != tt.want {
			t.Errorf("murmur3([]byte(%q), %#x) = %#08x, want %#08x", tt.in, tt.seed, got, tt.want)
		}
		if tt.seed == 0 {
			if a, b := Murmur3String(tt.in), Murmur3([]byte(tt.in)); a != tt.want || b != tt.want {
				t.Errorf("Murmur3(%q) = %#08x / %#08x, want %#08x", tt.in, a, b, tt.want)
			}
		}
	}
}

func TestMurmur3NoAlloc(t *testing.T) {
	b := []byte("_Z6kernelPfS_i")
	s := "_Z6kernelPfS_i"
	var sink uint32
	if n := testing.AllocsPerRun(100, func() { sink += Murmur3(b) + Murmur3String(s) }); n != 0 {
		t.Errorf("Murmur3 allocates %v times per call", n)
	}
	_ = sink
}

func BenchmarkMurmur3(b *testing.B) {
	name := []byte("_ZN7cutlass6KernelINS_4gemm6kernel4GemmEEEvNT_6ParamsE")
	b.SetBytes(int64(len(name)))
	for b.Loop() {
		Murmur3(name)
	}
}
