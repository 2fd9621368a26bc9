__device__ float g[4] = {1, 2, 3, 4};
__device__ float* gp = &g[2];
__constant__ float* cp = &g[1];
__global__ void k(float* p, int n) { p[0] = *gp + *cp + n; }
