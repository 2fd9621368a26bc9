__device__ int bump();
inline __device__ int twice() { return 2 * bump(); }
__global__ void kb(float* p, int n) { p[1] = twice() + n; }
