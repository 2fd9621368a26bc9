struct V { float a, b, c, d, e, f; };
__device__ __noinline__ V make(float x) { V v; v.a = x; v.b = x * 2; v.c = x * 3; v.d = x + 1; v.e = x - 1; v.f = x / 2; return v; }
__device__ __noinline__ float sum(V v) { return v.a + v.b + v.c + v.d + v.e + v.f; }
__global__ void k(float* p, int n) { p[0] = sum(make(p[0])); }
