#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void kgrid(float* p, int n) { cg::grid_group g = cg::this_grid(); p[g.thread_rank()] = n; g.sync(); p[0] += 1; }
