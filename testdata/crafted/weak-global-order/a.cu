#include "s.h"
__device__ float x[10];
__device__ double xd;
__global__ void ka(float *o) { v<1>[threadIdx.x] += o[0]; o[1] = v<1>[3] + x[threadIdx.x] + xd; }
