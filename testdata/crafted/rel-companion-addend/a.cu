// Which kernels' ".rel.text.<k>" nvlink names: an entry past the first of
// .rela.text.<k> with addend 0.
struct P { int a, b, c, d, e, f; };
__constant__ P pp;
__constant__ int q[16];
extern "C" {
__global__ void kA(int *o) { o[0] = pp.a * pp.b + pp.c; }   // pp+8, pp+4, pp+0: named
__global__ void kB(int *o) { o[0] = pp.a * o[1] + pp.c; }   // pp+8, pp+0: named
__global__ void kG(int *o) { o[0] = pp.c * o[1] + pp.a; }   // pp+0, pp+8
__global__ void t1(int *o) { o[0] = pp.c * o[1] + q[1]; }   // q+4, pp+8
}
