#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ __noinline__ float wsum(float v) { for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o); return v; }
__global__ void kw(float* p, int n) { cg::thread_block b = cg::this_thread_block(); __shared__ int cnt; if (threadIdx.x == 0) cnt = 0; b.sync(); atomicAdd(&cnt, 1); b.sync(); p[threadIdx.x] = wsum(p[threadIdx.x]) + cnt; }
