struct __align__(64) Big { float v[5]; };
extern __device__ Big big[3];
__device__ short sh[7];
__global__ void k2(float* p, int n) { __shared__ double sd[5]; sd[threadIdx.x % 5] = p[1]; __syncthreads(); p[1] = big[1].v[n & 3] + sh[n % 7] + sd[2]; }
