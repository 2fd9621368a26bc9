__device__ __noinline__ float leaf2(float x) { volatile float big[200]; for (int i = 0; i < 200; i++) big[i] = x * i; return big[(int)x % 200]; }
__device__ float deep(float x, int d) { float loc[32]; for (int i = 0; i < 32; i++) loc[i] = x + i; return leaf2(loc[d & 31]); }
