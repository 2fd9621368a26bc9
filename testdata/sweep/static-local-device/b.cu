template <int N> __device__ __noinline__ int bump() { static __device__ int c = N; return atomicAdd(&c, N); }
__device__ int next_id();
__global__ void kb(float* p, int n) { p[1] = bump<3>() + next_id(); }
