template <int N> __global__ void tk(float* p, int n) { p[threadIdx.x] = N * n; }
template __global__ void tk<4>(float*, int);
