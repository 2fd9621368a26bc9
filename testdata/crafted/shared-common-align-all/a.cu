__shared__ float m[64];
__global__ void k1(short *o) { __shared__ short a[64]; a[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = a[63 - threadIdx.x]; }
__global__ void k3(char *o) { __shared__ char c[64]; c[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = c[63 - threadIdx.x]; }
__global__ void k5(float *o) { m[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = m[63 - threadIdx.x]; }
__global__ void k6(float *o) { m[threadIdx.x] = o[threadIdx.x]; __syncthreads(); o[threadIdx.x] = m[62 - threadIdx.x]; }
