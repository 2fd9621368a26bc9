__managed__ unsigned long long ticks;
__device__ unsigned int gcount;
__global__ void kt(float* p, int n) { long long t = clock64(); __nanosleep(100); atomicAdd(&gcount, 1u); atomicMax(&ticks, (unsigned long long)(clock64() - t)); p[threadIdx.x] = __shfl_xor_sync(0xffffffff, p[threadIdx.x], 1); }
