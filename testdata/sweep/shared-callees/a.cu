__device__ __noinline__ float inner(float x) { return x * 3; }
__device__ __noinline__ float outer(float x) { return inner(x) + inner(x + 1); }
__global__ void ko1(float* p) { p[0] = outer(p[1]); }
__global__ void ko2(float* p) { p[0] = inner(p[1]); }
__global__ void ko3(float* p) { p[0] = outer(p[2]) + inner(p[3]); }
