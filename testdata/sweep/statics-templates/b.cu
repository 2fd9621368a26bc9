namespace { __device__ float scale = 3.0f; }
static __device__ __noinline__ float helper(float x) { return x - scale; }
template <typename T> __device__ __noinline__ T twice(T x) { return x + x; }
__global__ void kb(float* p, int n) { p[threadIdx.x] = helper(twice(p[threadIdx.x])) + twice((double)n); }
