__global__ void k3(float* p) { p[0] = 3; }
