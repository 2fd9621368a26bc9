#include <cstdio>
template <typename T> __device__ __noinline__ void show(T v) { printf("v=%f\n", (double)v); }
__global__ void k5b(float* p, int n) { show<int>(n); show<double>(p[1]); }
