// Kernels whose barriers are in device functions of b.cu.
extern __device__ float f1(float x);
extern __device__ float g(float x);
__global__ void ka(float* p, int n) { p[threadIdx.x] = f1(p[threadIdx.x]) + n; }
__global__ void kb(float* p, int n) { p[threadIdx.x] = g(p[threadIdx.x]) + n; }
