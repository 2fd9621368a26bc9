extern __device__ float tt[64];
__global__ void kq(float* p, int n) { p[0] = tt[n]; }
