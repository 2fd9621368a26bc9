#include <cstdio>
template <int N> __device__ __noinline__ float poly(float x) { float r = 0; for (int i = 0; i < N; i++) r = r * x + i; if (x > 1e9f) printf("big %d\n", N); return r; }
__global__ void kb(float* p, int n) { p[threadIdx.x] = poly<3>(p[threadIdx.x]) + poly<5>(n); }
