__device__ __noinline__ int lane() { int l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); return l; }
__global__ void kl(int* p) { p[threadIdx.x] = lane() + __popc(threadIdx.x) + __clz(threadIdx.x); }
