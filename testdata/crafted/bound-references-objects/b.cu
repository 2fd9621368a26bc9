// A device function using two references, called by kb (not inlined).
texture<float, 1> tZ;
texture<float, 1> tX;
__device__ __noinline__ float viaZ(int i) { return tex1Dfetch(tZ, i) * tex1Dfetch(tX, i + 1); }
__global__ void kb(float *o, int n) { o[threadIdx.x] = viaZ(n); }
__global__ void kc(float *o) { o[threadIdx.x] = 2; }
