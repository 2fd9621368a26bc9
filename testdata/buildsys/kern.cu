// Kernels calling kern.cu's neighbour vec.cu across objects, with shared
// memory and a weak template instantiated here and in main.cu.
#include "vec.h"

template <typename T> __device__ T twice(T x) { return x + x; }

__global__ void scale_kernel(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = twice(vec_scale(v[i], i));
}

__global__ void sum_kernel(const float *v, int n, float *out) {
  __shared__ float part[128];
  part[threadIdx.x % 128] = vec_sum(v, n);
  __syncthreads();
  if (threadIdx.x == 0) *out = part[0] + vec_calls;
}

// Kernels are launched here, next to their definitions: clang declares a
// kernel another file only launches as an undefined device function,
// which nvlink refuses ("not declared __global__ in all source files").
void run_kernels(float *v, int n, float *out) {
  scale_kernel<<<1, 64>>>(v, n);
  sum_kernel<<<1, 64>>>(v, n, out);
}
