__device__ float heavy(const float* p) { float a[32];
#pragma unroll
 for (int i = 0; i < 32; i++) a[i] = p[i] * p[i + 1]; float s = 0; 
#pragma unroll
 for (int i = 0; i < 32; i++) s += a[i] * a[31 - i]; return s; }
