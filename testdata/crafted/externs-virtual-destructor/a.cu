struct B { __device__ virtual ~B() {} __device__ virtual int f() { return 1; } };
struct D : B { int *p; __device__ D() { p = new int[4]; } __device__ ~D() { delete[] p; } __device__ int f() { return 2; } };
__global__ void kdel(B **o) { delete o[threadIdx.x]; }
__global__ void kmake(B **o) { o[threadIdx.x] = new D(); }
__global__ void kcall(B **o, int *r) { r[threadIdx.x] = o[threadIdx.x]->f(); }
