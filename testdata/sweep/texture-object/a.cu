__global__ void k(float* p, int n) { cudaTextureObject_t t = (cudaTextureObject_t)n; p[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x); }
__global__ void k2(float* p, int n) { cudaSurfaceObject_t s = (cudaSurfaceObject_t)n; float v; surf1Dread(&v, s, 4 * threadIdx.x); p[threadIdx.x] = v; }
