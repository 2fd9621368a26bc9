__device__ int odd(int n);
__device__ int even(int n) { return n == 0 ? 1 : odd(n - 1); }
__global__ void k(float* p, int n) { p[0] = even(n); }
