#include <cstdio>
__device__ void helper(int n);
__global__ void k(float* p, int n) { float* q = (float*)malloc(16); q[0] = n; printf("%f\n", q[0]); helper(n); free(q); }
