extern __shared__ char smem[];
__device__ __noinline__ float* slot(int i);
__global__ void ke3(float* p, int n) { *slot(threadIdx.x) = 2 * n; p[0] = *slot(2); }
