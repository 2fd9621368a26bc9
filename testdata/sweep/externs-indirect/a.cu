#include <cstdio>
typedef float (*f1_t)(float);
typedef void (*f2_t)(int);
__device__ float g(float x) { return x * 2; }
__device__ void h(int v) { printf("h=%d\n", v); }
__device__ f1_t t1 = g;
__device__ f2_t t2 = h;
__global__ void k(float* p, int n) { p[0] = t1(p[1]); }
