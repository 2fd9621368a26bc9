__global__ void ka(float* p, int n) { extern __shared__ double2 dyn2[]; dyn2[threadIdx.x].x = p[0]; __syncthreads(); p[0] = dyn2[1].y; }
