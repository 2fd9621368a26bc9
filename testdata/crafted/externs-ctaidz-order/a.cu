#include <cstdio>
__device__ __noinline__ int h(){ return blockIdx.z; }
__device__ __noinline__ void p(int a){ printf("x%d\n", a); }
__global__ void k(int *o){ o[0]=h(); p(o[1]); }
__global__ void k2(int *o){ o[0]=1; }
