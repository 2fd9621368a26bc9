__device__ __noinline__ float work(float* p, int n) { float loc[8]; __shared__ float sh[32]; for (int i = 0; i < 8; i++) loc[i] = p[i] * n; sh[threadIdx.x % 32] = loc[n & 7]; __syncthreads(); return sh[(threadIdx.x + 1) % 32]; }
__global__ void k(float* p, int n) { p[threadIdx.x] = work(p, n); }
