__device__ __noinline__ int walk(int* q, int n) { int* buf = (int*)alloca(n * sizeof(int)); for (int i = 0; i < n; i++) buf[i] = q[i]; int s = 0; for (int i = 0; i < n; i++) s += buf[i]; return s; }
__global__ void kal(int* p, int n) { p[0] = walk(p, n & 63); }
