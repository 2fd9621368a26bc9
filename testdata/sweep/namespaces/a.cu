namespace ns { __device__ __noinline__ int f(int x) { return x + 1; } }
namespace { __device__ __noinline__ int g(int x) { return x + 2; } }
__global__ void kn(int* p) { p[0] = ns::f(p[1]) + g(p[2]); }
