__device__ __noinline__ float wf2(float x) { return x + 2; }
__global__ void k2(float* p) { p[0] = wf2(p[1]); }
