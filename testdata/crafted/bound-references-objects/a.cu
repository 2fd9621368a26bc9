// Bound references over two objects: tX and sY here, tX again and tZ in
// b.cu; kbig uses none but has the largest parameter bank.
texture<float, 1> tX;
surface<void, 1> sY;
__global__ void ka(float *o, int n) { float v; surf1Dread(&v, sY, n * 4); o[threadIdx.x] = v + tex1Dfetch(tX, n); }
__global__ void kbig(float *o, double a, double b, double c, double d, int n) { o[threadIdx.x] = a + b + c + d + n; }
