#include <cuda/barrier>
typedef cuda::barrier<cuda::thread_scope_block> bar_t;
__device__ __noinline__ void i1(bar_t *b) { init(b, blockDim.x); }
__device__ __noinline__ void i2(bar_t *b) { init(b, blockDim.x); }
__device__ __noinline__ void i3(bar_t *b) { i1(b); }
__device__ __noinline__ int z() { return blockIdx.z; }
__device__ __noinline__ void w(bar_t *b) { b->arrive_and_wait(); }
__global__ void k2(float *out) {
  __shared__ bar_t b1, b2;
  if (threadIdx.x == 0) { i1(&b1); i2(&b2); }
  __syncthreads();
  b1.arrive_and_wait(); b2.arrive_and_wait();
}
__global__ void k1(float *out) {
  __shared__ bar_t b1, b2;
  if (threadIdx.x == 0) { i1(&b1); i1(&b2); }
  __syncthreads();
  b1.arrive_and_wait(); b2.arrive_and_wait();
  out[0] = z();
}
__global__ void kown(float *out) {
  __shared__ bar_t b1, b2;
  if (threadIdx.x == 0) { init(&b1, blockDim.x); i3(&b2); }
  __syncthreads();
  b1.arrive_and_wait(); b2.arrive_and_wait();
}
__global__ void k0(int *out) { w((bar_t *)out); }
