__global__ void __launch_bounds__(128, 4) k(float* p, int n) { p[threadIdx.x] *= n; }
__global__ void __launch_bounds__(1024) k2(float* p, int n) { __shared__ float s[1024]; s[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[threadIdx.x] = s[1023 - threadIdx.x] + n; }
