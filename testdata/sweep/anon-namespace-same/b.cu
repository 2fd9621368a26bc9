namespace { __device__ __noinline__ float helper(float x) { return x * 2; } __device__ float val = 2; }
__global__ void kb(float* p, int n) { p[1] = helper(p[1]) + val; }
