__device__ __noinline__ float sa(float x) { static __shared__ float buf[64]; buf[threadIdx.x % 64] = x; __syncthreads(); return buf[0]; }
__global__ void ka(float* p, int n) { p[0] = sa(p[threadIdx.x]); }
