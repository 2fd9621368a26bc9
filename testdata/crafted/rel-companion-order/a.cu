// Which functions' ".rel.text.<f>" nvlink names turns on the order of their
// relocations: a call names its callee, then the caller (return address).
__device__ __noinline__ int g(int a) { return a * 3 + 1; }
__device__ int add(int a, int b) { return a + b; }
typedef int (*P)(int, int);
__device__ P pp = add;
__constant__ int cc[4];
extern "C" {
__device__ __noinline__ int f2(P p, int a) { return g(a); }                                 // g f f
__device__ __noinline__ int f4(P p, int a) { int r = p(a, a); return r + p(r, a); }         // f f f f
__device__ __noinline__ int f8(P p, int a) { int r = g(a); return r + p(r, a); }            // f f g f f: named
__device__ __noinline__ int f9(P p, int a) { int r = p(a, a); return r + g(r); }            // g f f f f
__device__ __noinline__ int c1(P p, int a) { int r = p(a, a); return r + cc[r & 3]; }       // cc f f
__device__ __noinline__ int c2(P p, int a) { int r = cc[a & 3]; return p(r, a); }           // f f cc: named
}
__global__ void k(int *o) {
	P p = pp;
	int a = o[1];
	o[0] = f2(p, a) + f4(p, a) + f8(p, a) + f9(p, a) + c1(p, a) + c2(p, a);
}
