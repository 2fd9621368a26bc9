static __global__ void static_k(float* out, int n) { out[0] = 5.f; }
static __global__ void static_unused(float* out, int n) { out[0] = 6.f; }
namespace { __global__ void anon_k(float* out, int n) { out[0] = 7.f; } }
template <typename T> __global__ void tk(T* out, int n) { out[0] = (T)8; }
template __global__ void tk<int>(int*, int);
__global__ void via_api(float* out, int n) { out[0] = 9.f; }
void host_c(float* p, int* q) { static_k<<<1,1>>>(p, 1); anon_k<<<1,1>>>(p,1); tk<float><<<1,1>>>(p,1); void* args[2] = {&p, &p}; cudaLaunchKernel((void*)via_api, 1, 1, args, 0, 0); }
