static __constant__ float k_tab[8] = {5, 6, 7, 8};
static __constant__ int other = 3;
__global__ void kb(float* p, int n) { p[1] = k_tab[n & 7] + other; }
