__device__ float ext_table[128];
__global__ void kt2(float* p, int n) { ext_table[n] = p[0]; }
