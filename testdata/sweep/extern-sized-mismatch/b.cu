__device__ float tt[128];
__global__ void kq2(float* p, int n) { tt[n] = p[0]; }
