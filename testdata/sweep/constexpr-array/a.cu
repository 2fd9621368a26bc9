__device__ constexpr float lut[4] = {0.5f, 1.5f, 2.5f, 3.5f};
__global__ void ka(float* p, int n) { p[0] = lut[n & 3]; }
