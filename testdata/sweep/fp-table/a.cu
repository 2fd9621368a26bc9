typedef float (*fn_t)(float);
__device__ float f(float x) {
	__shared__ float buf[128];
	buf[threadIdx.x % 128] = x;
	__syncthreads();
	return buf[(threadIdx.x + 1) % 128];
}
__device__ float h(float x) { return x * 3.0f; }
__device__ fn_t table[2] = {f, h};
__global__ void k(float* p, int n) { p[threadIdx.x] = table[n & 1](p[threadIdx.x]); }
__global__ void k2(float* p, int n) { fn_t g = n ? f : h; p[threadIdx.x] = g(p[threadIdx.x]); }
