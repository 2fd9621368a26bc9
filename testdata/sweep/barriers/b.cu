// f1 uses barrier 0 (1 barrier), f3 barrier 3 (4); g calls f3; kc uses
// barrier 5 itself (6) and calls f3; kd uses none and calls nothing.
__device__ float f1(float x) { __syncthreads(); return x + 3.0f; }
__device__ __noinline__ float f3(float x) { asm volatile("bar.sync 3;"); return x * 2.0f; }
__device__ float g(float x) { return f3(x) + 1.0f; }
__global__ void kc(float* p, int n) { asm volatile("bar.sync 5;"); p[threadIdx.x] = f3(p[threadIdx.x]) + n; }
__global__ void kd(float* p, int n) { p[threadIdx.x] = n; }
