__global__ void fk(float* out, int n) { out[0] = 12.f; }
__device__ float fdev[2];
void host_f() { float h[2]; cudaMemcpyToSymbol(fdev, h, 8); }
