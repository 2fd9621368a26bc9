__device__ int gv;
int main(){ int v=1; cudaMemcpyToSymbol(gv,&v,4); return 0; }
