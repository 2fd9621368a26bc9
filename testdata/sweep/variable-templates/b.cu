template <typename T> __device__ T gval = T(3);
template <typename T> __device__ __noinline__ T get() { return gval<T>; }
__global__ void kg2(float* p) { p[0] = get<float>() + get<int>(); }
