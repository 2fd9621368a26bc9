__device__ __noinline__ double f(double x) { return x * 0.123456789 + 9.87654321; }
__device__ __noinline__ double h(double x) { return x * 0.723456789 + 7.87654321 + x * x * 1.2345678; }
__device__ __noinline__ double g(double x) { return f(x) * 0.55555555 + 0.4444444444; }
__device__ __noinline__ double dead(double x) { return x * 0.223456789 + 8.87654321; }
__global__ void k1(double *p) { p[0] = f(p[1]) * 3.3333333333 + 1.7777777777; }
__global__ void k2(double *p) { p[0] = h(p[1]) * 3.1333333333; }
__global__ void k3(double *p) { p[0] = g(p[1]) * 3.1333333333 + 1.1 + p[3] * 1.2345; }
__global__ void k4(double *p) { p[0] = p[1] * 3.1333333333; }
__global__ void k5(double *p) { p[0] = g(p[1]) + f(p[2]); }
