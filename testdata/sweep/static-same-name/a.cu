static __device__ float scale = 2.0f;
static __device__ __noinline__ float f(float x) { return x * scale; }
__device__ float fa(float x) { return f(x); }
__global__ void ka(float* p, int n) { p[0] = fa(p[0]) + n; }
