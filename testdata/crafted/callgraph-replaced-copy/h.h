__device__ __noinline__ int leaf(int x);
__device__ __noinline__ int other(int x);
#ifdef B
inline __device__ int helper(int x) { return other(x) * 2 + 1; }
#else
inline __device__ int helper(int x) { return leaf(x) * 2 + 1; }
#endif
