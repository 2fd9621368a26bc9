#include <cstdio>
__device__ int fib(int n);
__device__ __noinline__ void report(int v) { printf("v=%d\n", v); }
__global__ void kr(float* p, int n) { int v = fib(n & 15); if (threadIdx.x == 0) report(v); p[threadIdx.x] = v; }
