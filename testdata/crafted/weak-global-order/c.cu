#include "s.h"
__device__ short z[3];
__global__ void kc(float *o) { v<1>[threadIdx.x] += o[0]; o[1] = v<1>[3] + z[threadIdx.x]; }
