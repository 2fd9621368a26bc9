__device__ int g(int v) { return v * 3; }
