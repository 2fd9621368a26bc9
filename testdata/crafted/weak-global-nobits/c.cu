#include "s.h"
__global__ void kc(float *o) { v<1>[threadIdx.x] += o[0]; o[1] = v<1>[3]; }
