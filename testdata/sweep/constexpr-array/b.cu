__device__ constexpr float lut2[4] = {1.5f, 2.5f, 3.5f, 4.5f};
__global__ void kb(float* p, int n) { p[1] = lut2[n & 3] + lut2[(n + 1) & 3]; }
