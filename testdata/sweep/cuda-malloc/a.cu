__global__ void k(float* p, int n) { float* q; cudaMalloc(&q, 16); q[0] = n; p[0] = q[0]; cudaFree(q); }
