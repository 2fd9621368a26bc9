namespace ns { __device__ int f(int x); }
namespace { __device__ __noinline__ int g(int x) { return x + 3; } }
__global__ void kn2(int* p) { p[0] = ns::f(p[1]) + g(p[2]); }
