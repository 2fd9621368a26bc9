__managed__ float mval = 2.0f;
__managed__ int mcount;
__global__ void k(float* p, int n) { p[0] = mval * n; atomicAdd(&mcount, 1); }
