#include <cstdio>
__device__ __noinline__ void logv(int v) { printf("%d\n", v); }
__device__ __noinline__ int helper(int v) { logv(v); return v + 1; }
__global__ void k1(int* p) { p[0] = helper(p[1]); }
__global__ void k2(int* p) { p[0] = p[1]; }
__global__ void k3(int* p) { logv(3); p[0] = 0; }
