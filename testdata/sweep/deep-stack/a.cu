extern __device__ float deep(float x, int d);
__global__ void ks(float* p, int n) { float buf[64]; for (int i = 0; i < 64; i++) buf[i] = p[i]; p[0] = deep(buf[n & 63], 3); }
