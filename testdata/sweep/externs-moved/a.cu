#include <cstdio>
extern __device__ int g(int v);
__device__ __noinline__ void report(int v) { printf("v=%d\n", v); }
__global__ void k(float* p, int n) { int v = g(n); report(v); p[0] = v; }
