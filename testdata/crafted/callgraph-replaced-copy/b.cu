#define B
#include "h.h"
__device__ __noinline__ int other(int x) { return x - 1; }
__global__ void kb(int *o) { o[0] = helper(o[1]); }
