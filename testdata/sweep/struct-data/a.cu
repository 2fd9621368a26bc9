struct S { int a; float b[3]; };
__device__ S sdata[4] = {{1, {1, 2, 3}}, {2, {4, 5, 6}}};
__device__ S* sp = &sdata[1];
__constant__ S cdata = {7, {8, 9, 10}};
__global__ void ks(float* p) { p[0] = sp->b[1] + cdata.b[2] + sdata[0].a; }
