__global__ void child(float* p, int n);
__global__ void parent(float* p, int n) { if (threadIdx.x == 0) child<<<1, 32>>>(p, n); }
