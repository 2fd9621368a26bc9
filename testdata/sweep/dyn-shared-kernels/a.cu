extern __shared__ float dyn1[];
__device__ __noinline__ float rd(int i) { return dyn1[i]; }
__global__ void kd1(float* p) { __shared__ float s[16]; s[threadIdx.x & 15] = 1; dyn1[threadIdx.x] = s[0]; p[0] = rd(1); }
__global__ void kd2(float* p) { __shared__ double t[8]; t[threadIdx.x & 7] = 2; p[0] = rd(2) + t[0]; }
__global__ void kd3(float* p) { p[0] = 3; }
