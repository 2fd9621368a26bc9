__global__ void kb(float* p, int n) { extern __shared__ char dync[]; __shared__ float st[3]; st[threadIdx.x % 3] = n; dync[threadIdx.x] = 1; __syncthreads(); p[0] = dync[3] + st[1]; }
