extern __constant__ float ctab[16];
__constant__ int cfg[4] = {1, 2, 3, 4};
__global__ void kc(float* p, int n) { __shared__ float s1[128]; s1[threadIdx.x & 127] = ctab[n & 15] * cfg[n & 3]; __syncthreads(); p[threadIdx.x] = s1[(threadIdx.x + 1) & 127]; }
