struct __align__(16) C4 { float x, y, z, w; };
__constant__ char cflag = 1;
__constant__ C4 cvec[3];
__constant__ double cd = 2.5;
__global__ void k(float* p, int n) { p[0] = cvec[n % 3].y + cflag + cd; }
