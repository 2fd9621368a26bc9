#include "h.h"
__device__ __noinline__ int leaf(int x) { return x + 7; }
__global__ void ka(int *o) { o[0] = helper(o[1]); }
