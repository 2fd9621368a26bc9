template <int N> __global__ void tk(float* p, int n) { p[threadIdx.x] = N * n; }
template __global__ void tk<1>(float*, int);
template __global__ void tk<2>(float*, int);
__global__ void ka(float* p, int n) { p[0] = n; }
