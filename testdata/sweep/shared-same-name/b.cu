__device__ float sa(float x);
__device__ __noinline__ float sb(float x) { static __shared__ float buf[128]; buf[threadIdx.x % 128] = x; __syncthreads(); return buf[1]; }
__global__ void kb(float* p, int n) { p[0] = sb(p[threadIdx.x]) + sa(p[1]); }
