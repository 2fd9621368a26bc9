__device__ float shared_fn(float x);
__device__ __noinline__ float wrap(float x) { return shared_fn(x) * 2; }
__global__ void kb(float* p, int n) { p[1] = wrap(p[1]) + shared_fn(p[2]); }
