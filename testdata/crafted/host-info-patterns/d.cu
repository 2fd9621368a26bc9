template <typename T> __global__ void tk(T* out, int n) { out[0] = (T)8; }
__global__ void my_Z2tk(float* out, int n) { out[0] = 1.f; }
__global__ void x_Z7via_apiy(float* out, int n) { out[0] = 1.f; }
void host_d(float* p) { tk<float><<<1,1>>>(p,1); }
