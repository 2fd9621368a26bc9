__device__ __noinline__ float f(float x) { return x * 2.0f; }
__device__ __noinline__ float g(float x) { return x * 3.0f; }
__global__ void k(float* p, int n) { p[threadIdx.x] = f(p[threadIdx.x]) + n; }
