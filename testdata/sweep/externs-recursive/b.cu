#include <cstdio>
__device__ int fib(int n) { int a[16]; for (int i = 0; i < 16; i++) a[i] = i * n; return n < 2 ? a[n & 15] : fib(n - 1) + fib(n - 2); }
__global__ void kp(float* p, int n) { printf("n=%d\n", n); p[0] = fib(n); }
