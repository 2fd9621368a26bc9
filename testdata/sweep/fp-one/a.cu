#include <cstdio>
typedef void (*f2_t)(int);
__device__ void h(int v) { printf("h=%d\n", v); }
__device__ f2_t t2 = h;
__global__ void k(float* p, int n) { p[0] = n; }
__global__ void k2(float* p, int n) { t2(n); }
