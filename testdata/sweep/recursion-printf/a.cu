#include <cstdio>
__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__global__ void kf(int* p, int n) { p[0] = fact(n); if (n < 0) printf("neg %d\n", n); }
