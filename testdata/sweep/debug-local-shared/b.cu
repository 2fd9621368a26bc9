__device__ float work(float* p, int n);
__global__ void k2(float* p, int n) { __shared__ int cnt; if (threadIdx.x == 0) cnt = n; __syncthreads(); p[threadIdx.x] = work(p, cnt); }
