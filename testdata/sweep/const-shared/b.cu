__constant__ float ctab[16];
extern __shared__ float dynsh[];
__global__ void kd(float* p, int n) { __shared__ double s2[64]; s2[threadIdx.x & 63] = ctab[n & 15]; dynsh[threadIdx.x] = n; __syncthreads(); p[threadIdx.x] = s2[(threadIdx.x + 1) & 63] + dynsh[0]; }
