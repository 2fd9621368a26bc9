template <int N> __device__ __noinline__ float f(float* p, int n) { return p[0] * N + n; }
__global__ void kb(float* p, int n) { p[1] = f<2>(p, n); }
