template <int N> __device__ __noinline__ double t(double x) { return x * (0.123456789 + N) + 9.87654321 * N; }
__global__ void kb(double *o) { o[0] = t<3>(o[2]) * 1.0000001; }
