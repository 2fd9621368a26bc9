#include "s.h"
__device__ char y[5];
__global__ void kb(float *o) { v<1>[threadIdx.x] += o[0]; o[1] = v<1>[3] + y[threadIdx.x]; }
