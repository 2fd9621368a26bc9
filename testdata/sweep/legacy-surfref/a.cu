surface<void, 1> sref;
__global__ void k(float* p, int n) { float v; surf1Dread(&v, sref, 4 * threadIdx.x); p[threadIdx.x] = v + n; }
