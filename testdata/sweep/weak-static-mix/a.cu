template <typename T> __device__ __noinline__ T sq(T x) { return x * x; }
static __device__ __noinline__ float local1(float x) { return sq(x) + 1; }
__global__ void ka(float* p, int n) { p[0] = local1(p[0]) + sq<double>(n); }
