template <int N> __device__ __noinline__ double t(double x) { return x * (0.1 + N) + 0.2 * N; }
__device__ __noinline__ double f(double x) { return x * 0.123456789 + 9.87654321; }
__global__ void ka(double *o) { o[0] = f(o[1]) + t<3>(o[2]); }
__global__ void kb(double *o) { o[0] = f(o[1]); }
