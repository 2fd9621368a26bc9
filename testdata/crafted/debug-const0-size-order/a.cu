#include <cuda/pipeline>

extern __shared__ float dyn[];

__global__ void k(const float *in, float *out)
{
	cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
	pipe.producer_acquire();
	cuda::memcpy_async(&dyn[threadIdx.x], &in[threadIdx.x], sizeof(float), pipe);
	pipe.producer_commit();
	cuda::pipeline_consumer_wait_prior<0>(pipe);
	out[threadIdx.x] = dyn[threadIdx.x ^ 1];
}
