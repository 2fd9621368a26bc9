// The program: launches kern.cu's kernels and one of its own.
#include <cstdio>
#include "vec.h"

template <typename T> __device__ T twice(T x) { return x + x; }

__global__ void main_kernel(float *v) { v[threadIdx.x] = twice(vec_scale(v[threadIdx.x], 1)); }

int main() {
  float *v, *out;
  if (cudaMalloc(&v, 64 * sizeof(float)) != cudaSuccess || cudaMalloc(&out, sizeof(float)) != cudaSuccess) {
    printf("no device\n");
    return 0;
  }
  run_kernels(v, 64, out);
  main_kernel<<<1, 64>>>(v);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
