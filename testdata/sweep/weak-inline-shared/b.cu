template <int N> __device__ __noinline__ float g(float x) { __shared__ float s[N]; s[threadIdx.x % N] = x; __syncthreads(); return s[0]; }
__global__ void kb(float* p, int n) { p[1] = g<16>(p[1]) + g<32>(p[2]); }
