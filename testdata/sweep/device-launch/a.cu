__device__ __noinline__ void w(volatile int* p, int i) { p[i] = i; }
__global__ void k5(int* p, int n) { for (int i = 0; i < n; i++) w(p, i); }
__global__ void k6(int* p, int n) { w(p, n); }
__global__ void k7(int* p, int n) { k5<<<1,1>>>(p, n); }
