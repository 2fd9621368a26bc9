extern __device__ float g[4];
__device__ float* gq = &g[3];
__global__ void k2(float* p, int n) { p[1] = *gq; }
