__device__ __noinline__ float f1(float x) { __shared__ float a[32]; a[threadIdx.x & 31] = x; __syncthreads(); return a[0]; }
__device__ __noinline__ float f2(float x) { __shared__ float b[64]; b[threadIdx.x & 63] = x; __syncthreads(); return b[1] + f1(x); }
__global__ void kx(float* p) { p[0] = f2(p[1]); }
__global__ void ky(float* p) { p[0] = f1(p[1]); }
__global__ void kz(float* p) { __shared__ float c[16]; c[threadIdx.x & 15] = 1; p[0] = c[0]; }
