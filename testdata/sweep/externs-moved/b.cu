__device__ int g(int n) { int a[16]; for (int i = 0; i < 16; i++) a[i] = i * n; return n < 2 ? a[n & 15] : g(n - 1) + g(n - 2); }
