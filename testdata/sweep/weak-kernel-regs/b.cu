template <int N> __global__ void tk(float* p, int n) { float a[8]; for (int i = 0; i < 8; i++) a[i] = p[i] * N; float s = 0; for (int i = 0; i < n; i++) s += a[(i * 3) & 7] * a[i & 7]; p[threadIdx.x] = s; }
template __global__ void tk<4>(float*, int);
