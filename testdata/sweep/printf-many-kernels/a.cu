#include <cstdio>
__device__ __noinline__ void log1(int v) { printf("v=%d\n", v); }
__global__ void k1(float* p, int n) { log1(n); }
__global__ void k2(float* p, int n) { log1(n + 1); printf("k2\n"); }
__global__ void k3(float* p, int n) { p[0] = n; }
