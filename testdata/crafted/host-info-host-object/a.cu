#include <cstdio>
__global__ void used_k(float* out, int n) { out[0] = 1.f; }
__global__ void unused_k(float* out, int n) { out[0] = 2.f; }
__device__ float dvar[4];
__device__ float dvar_unused[4];
__constant__ float cvar[4];
void host_launch(float* p) { used_k<<<1,1>>>(p, 1); float h[4]; cudaMemcpyToSymbol(dvar, h, 16); }
