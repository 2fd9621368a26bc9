__device__ float red(float x);
__device__ __noinline__ float red2(float x) { __shared__ double acc[64]; acc[threadIdx.x % 64] = x; __syncthreads(); return acc[3] + red(x); }
__global__ void k2(float* p, int n) { __shared__ float mine[100]; mine[threadIdx.x % 100] = p[0]; __syncthreads(); p[threadIdx.x] = red2(mine[5]); }
__global__ void k3(float* p, int n) { p[threadIdx.x] = red(p[0]) + n; }
