struct __align__(64) Big { float v[5]; };
__device__ Big big[3];
__device__ char c1;
__device__ double d1 = 1.5;
__device__ char c2 = 3;
__global__ void k(float* p, int n) { __shared__ __align__(128) float s[40]; __shared__ char sc[3]; s[threadIdx.x % 40] = p[0]; sc[threadIdx.x % 3] = n; __syncthreads(); p[0] = big[n % 3].v[1] + c1 + d1 + c2 + s[1] + sc[2]; }
