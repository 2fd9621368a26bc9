__device__ __noinline__ double f(double x) { return x * 0.123456789 + 9.87654321; }
__device__ __noinline__ double dead(double x) { return x * 0.223456789 + 8.87654321; }
__device__ __noinline__ double dead2(double x) { return dead(x) * 0.523456789 + 5.87654321; }
__global__ void k(double *p) { p[0] = f(p[1]) * 3.3333333333 + 1.7777777777; }
