extern __device__ void g(int v);
__global__ void k(float* p, int n) { g(n); p[0] = n; }
