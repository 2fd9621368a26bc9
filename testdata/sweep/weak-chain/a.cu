template<int N> __device__ __noinline__ float leaf(float x) { return x * N + 0.5f; }
template<int N> __device__ __noinline__ float mid(float x) { return leaf<N>(x) + leaf<N>(x * 2.0f); }
__global__ void ka(float* p, int n) { p[0] = mid<3>(p[n]); }
