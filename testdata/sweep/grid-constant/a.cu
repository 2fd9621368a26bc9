struct Params { float a[16]; int n; };
__global__ void k(const __grid_constant__ Params prm, float* p) { const float* q = &prm.a[threadIdx.x % 16]; p[threadIdx.x] = *q + prm.n; }
