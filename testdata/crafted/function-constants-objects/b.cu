template <int N> __device__ __noinline__ double t(double x) { return x * (0.1 + N) + 0.2 * N; }
__device__ double f(double x);
__global__ void kc(double *o) { o[0] = f(o[1]) + t<3>(o[2]); }
__global__ void kd(double *o) { o[0] = t<3>(o[2]) * 1.0000001; }
