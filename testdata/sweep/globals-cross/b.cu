extern __device__ float gx;
extern __device__ float gy;
extern __device__ void setx(float v);
__global__ void kg2(float* p) { setx(gy); p[0] = gx; }
