texture<float, 1, cudaReadModeElementType> tref;
__global__ void k(float* p, int n) { p[threadIdx.x] = tex1Dfetch(tref, threadIdx.x + n); }
