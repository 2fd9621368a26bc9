texture<float, 2, cudaReadModeElementType> tref2;
__global__ void k2(float* p, int n) { p[threadIdx.x] = tex2D(tref2, threadIdx.x, n); }
