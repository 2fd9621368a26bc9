__device__ __noinline__ void sync2() { __syncthreads(); asm volatile("bar.sync 2;"); }
__device__ __noinline__ void sync7() { asm volatile("bar.sync 7;"); }
typedef void (*sfn)();
__device__ sfn tbl[2] = {sync2, sync7};
__global__ void kb1(int* p, int n) { tbl[n & 1](); p[0] = n; }
__global__ void kb2(int* p, int n) { sync2(); p[0] = n; }
