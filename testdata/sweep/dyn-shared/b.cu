extern __shared__ float dyn[];
__device__ float reduce(float x) { dyn[threadIdx.x] = x; __syncthreads(); return dyn[(threadIdx.x + 1) % blockDim.x]; }
