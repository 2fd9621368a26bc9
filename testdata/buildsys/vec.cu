// A small separately compiled code base for the build-system tests
// (internal/e2e/buildsys_test.go): device functions, a __device__
// variable and __constant__ data defined here and used from kern.cu.
#include "vec.h"

__device__ int vec_calls;
__constant__ float vec_weights[4] = {0.5f, 1.0f, 1.5f, 2.0f};

__device__ float vec_scale(float x, int i) {
  atomicAdd(&vec_calls, 1);
  return x * vec_weights[i & 3];
}

__device__ __noinline__ float vec_sum(const float *v, int n) {
  float s = 0;
  for (int i = 0; i < n; i++) s += vec_scale(v[i], i);
  return s;
}
