__device__ float shared_fn(float x);
__device__ float wrap(float x);
__global__ void kc(float* p, int n) { p[2] = wrap(p[3]) + shared_fn(n); }
