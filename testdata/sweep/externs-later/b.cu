#include <cstdio>
__device__ void g(int v) { printf("g=%d\n", v); }
