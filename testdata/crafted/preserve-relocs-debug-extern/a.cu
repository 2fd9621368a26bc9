extern __shared__ float dyn[];

__global__ void k(float *out)
{
	dyn[threadIdx.x] = out[threadIdx.x];
	__syncthreads();
	out[threadIdx.x] = dyn[threadIdx.x ^ 1];
}
