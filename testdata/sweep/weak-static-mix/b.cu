template <typename T> __device__ __noinline__ T sq(T x) { return x * x; }
static __device__ __noinline__ float local1(float x) { return sq(x) - 1; }
__global__ void kb(float* p, int n) { p[1] = local1(p[1]) + sq<int>(n); }
