#include <cstdio>
template <int N> __device__ __noinline__ float poly(float x) { float r = 0; for (int i = 0; i < N; i++) r = r * x + i; if (x > 1e9f) printf("big %d\n", N); return r; }
__device__ __noinline__ float heavyA(const float* p) { float a[24]; for (int i = 0; i < 24; i++) a[i] = p[i] * p[i+1]; float s = 0; for (int i = 0; i < 24; i++) s += a[i] * a[23 - i]; return s; }
__global__ void __launch_bounds__(256) ka(float* p, int n) { p[threadIdx.x] = poly<3>(p[threadIdx.x]) + heavyA(p + n); }
