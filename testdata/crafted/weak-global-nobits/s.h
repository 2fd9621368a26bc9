template <int N> __device__ float v[36];
