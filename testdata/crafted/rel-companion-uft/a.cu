// A virtual call: with CUDA 12.x ptxas, its code names __UFT_OFFSET (the
// unified function table), a weak undefined object nvlink 12.5 resolves.
struct B { __device__ virtual int v(int x) = 0; };
struct D : B { __device__ int v(int x) { return x + 1; } };
__device__ __noinline__ int call(B *b, int x) { return b->v(x); }
__global__ void k(int *o) { D d; o[0] = call(&d, o[1]); }
