extern __shared__ char smem[];
__device__ __noinline__ float* slot(int i) { return (float*)smem + i; }
__global__ void ke1(float* p, int n) { *slot(threadIdx.x) = n; __syncthreads(); p[threadIdx.x] = *slot(0); }
__global__ void ke2(float* p, int n) { __shared__ int pre[32]; pre[threadIdx.x & 31] = n; *slot(threadIdx.x + 32) = pre[0]; p[0] = *slot(1); }
