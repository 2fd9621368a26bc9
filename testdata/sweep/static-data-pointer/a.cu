static __device__ int x[4];
__device__ int* px = &x[1];
__global__ void k(float* p, int n) { p[0] = *px + n; }
