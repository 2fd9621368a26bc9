#include <cassert>
__device__ __noinline__ void check(float x) { assert(x >= 0); }
__global__ void k(float* p, int n) { check(p[0]); if (n < 0) __trap(); p[0] = n; }
