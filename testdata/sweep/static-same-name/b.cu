static __device__ float scale = 3.0f;
static __device__ __noinline__ float f(float x) { return x * scale + 1; }
__device__ float fa(float x);
__global__ void kb(float* p, int n) { p[1] = f(p[1]) + fa(p[2]); }
