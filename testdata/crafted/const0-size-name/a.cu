#include <cuda/pipeline>
extern __shared__ float shmem[];
__global__ void k(const float *in, float *out) {
  auto pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(&shmem[threadIdx.x], &in[threadIdx.x], sizeof(float), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  out[threadIdx.x] = shmem[threadIdx.x] * 2;
  pipe.consumer_release();
}
