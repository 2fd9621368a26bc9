__device__ int g1; __constant__ int c1; static __device__ int g2;
__global__ void k1(int *p){ *p = g1 + c1 + g2; }
static __global__ void k2(int *p){ *p = 2; }
__device__ int unused_dev(int x){ return x*3; }
int main(){ int *p = 0; k1<<<1,1>>>(p); k2<<<1,1>>>(p); int v=1; cudaMemcpyToSymbol(g1,&v,4); cudaMemcpyToSymbol(c1,&v,4); cudaMemcpyToSymbol(g2,&v,4); return 0; }
