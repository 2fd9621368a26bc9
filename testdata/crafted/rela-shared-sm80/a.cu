__global__ void k2(float *o) { __shared__ float t[64]; t[threadIdx.x + 1] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = t[threadIdx.x + 2] + t[threadIdx.x + 5]; }
