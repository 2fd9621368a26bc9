#include <cstdio>
__device__ __noinline__ void say(int v) { printf("v=%d\n", v); }
__global__ void k(float* p, int n) { say(n); p[0] = n; }
