#include <cstdio>
template <typename T> __device__ __noinline__ void show(T v) { printf("v=%f\n", (double)v); }
__global__ void k5a(float* p, int n) { show<float>(p[0]); show<int>(n); }
