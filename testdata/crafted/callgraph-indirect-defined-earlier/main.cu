// Takes multiplyByTwo's address, then divideByTwo's, and calls through them.
extern __device__ float multiplyByTwo(float);
extern __device__ float divideByTwo(float);
typedef float (*F)(float);
__device__ F pm = multiplyByTwo;
__device__ F pd = divideByTwo;
__device__ __noinline__ void transform(float *v, F f) { v[threadIdx.x] = f(v[threadIdx.x]); }
__global__ void k(float *v, int s) { transform(v, s ? pm : pd); }
