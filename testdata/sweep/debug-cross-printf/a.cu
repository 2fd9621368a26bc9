#include <cstdio>
__device__ float scale(float x);
__global__ void k(float* p, int n) { float v = scale(p[0]); printf("%f %d\n", v, n); p[0] = v; }
