template <int N> __device__ __noinline__ float f(float* p, int n) { float a[8]; for (int i = 0; i < 8; i++) a[i] = p[i] * N; float s = 0; for (int i = 0; i < n; i++) s += a[(i * 5) & 7] * a[i & 7]; return s; }
__global__ void kc(float* p, int n) { p[2] = f<2>(p, n); }
