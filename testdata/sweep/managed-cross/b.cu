extern __managed__ float mval;
extern __managed__ int mcount;
__global__ void k2(float* p, int n) { p[1] = mval + mcount; }
