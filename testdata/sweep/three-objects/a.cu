__device__ __noinline__ float wf(float x) { return x + 1; }
__global__ void k1(float* p) { p[0] = wf(p[1]); }
