namespace { __device__ __noinline__ float helper(float x) { return x + 1; } __device__ float val = 1; }
__global__ void ka(float* p, int n) { p[0] = helper(p[0]) + val; }
