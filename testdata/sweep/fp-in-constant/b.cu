__device__ float inc(float x) { return x + 1; }
