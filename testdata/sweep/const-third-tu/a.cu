__device__ float helper(int i);
__global__ void k(float* p, int n) { p[0] = helper(n); }
