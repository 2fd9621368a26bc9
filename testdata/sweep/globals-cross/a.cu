__device__ float gx;
__device__ float gy = 2.0f;
__device__ __noinline__ void setx(float v) { gx = v; }
__global__ void kg(float* p) { setx(p[0]); p[1] = gy; }
