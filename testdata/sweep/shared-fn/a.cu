__device__ __noinline__ float sq(float x) { return x * x; }
__global__ void k6(float* p, int n) { p[threadIdx.x] = sq(p[threadIdx.x]); }
__global__ void k7(float* p, int n) { __syncthreads(); p[threadIdx.x] = sq(n); }
