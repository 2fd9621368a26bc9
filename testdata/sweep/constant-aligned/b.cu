__constant__ short cs[3] = {1, 2, 3};
__constant__ double cd2;
__global__ void k2(float* p, int n) { p[1] = cs[n % 3] + cd2; }
