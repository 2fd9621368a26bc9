__global__ void child(float* p, int n) { p[threadIdx.x] += n; }
