__device__ float shared_fn(float x) { return x * x + 1; }
__global__ void ka(float* p, int n) { p[0] = shared_fn(p[0]); }
