extern __device__ int helper(int v);
__global__ void k4(int* p) { p[0] = helper(4); }
