__device__ int x[4];
__device__ int y;
__device__ int* px[2] = {&x[1], &y};
__global__ void k(float* p, int n) { p[0] = *px[n & 1] + n; }
