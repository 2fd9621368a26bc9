#include <cstdio>
__device__ __noinline__ void r1(int d);
__device__ __noinline__ void r2(int d) { if (d > 0) r1(d - 1); else printf("end\n"); }
__device__ __noinline__ void r1(int d) { if (d > 0) r2(d - 1); }
__global__ void kr(int n) { r1(n); }
