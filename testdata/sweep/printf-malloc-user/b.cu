#include <cstdio>
__device__ void helper(int n) { void* m = malloc(n); printf("%p\n", m); free(m); }
