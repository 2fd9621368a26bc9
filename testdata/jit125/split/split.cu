// Many device functions in one unit, for libnvvm's split compiles.
__device__ __noinline__ float f0(float x) { for (int k = 0; k < 2; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f1(float x) { for (int k = 0; k < 3; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f2(float x) { for (int k = 0; k < 4; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f3(float x) { for (int k = 0; k < 5; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f4(float x) { for (int k = 0; k < 6; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f5(float x) { for (int k = 0; k < 7; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f6(float x) { for (int k = 0; k < 8; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f7(float x) { for (int k = 0; k < 9; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f8(float x) { for (int k = 0; k < 10; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f9(float x) { for (int k = 0; k < 11; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f10(float x) { for (int k = 0; k < 12; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f11(float x) { for (int k = 0; k < 13; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f12(float x) { for (int k = 0; k < 14; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f13(float x) { for (int k = 0; k < 15; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f14(float x) { for (int k = 0; k < 16; k++) x = x * 1.5f + (float)k; return x; }
__device__ __noinline__ float f15(float x) { for (int k = 0; k < 17; k++) x = x * 1.5f + (float)k; return x; }
__global__ void split_main(float* o) {
  float x = o[threadIdx.x];
  x = f0(x);
  x = f1(x);
  x = f2(x);
  x = f3(x);
  x = f4(x);
  x = f5(x);
  x = f6(x);
  x = f7(x);
  x = f8(x);
  x = f9(x);
  x = f10(x);
  x = f11(x);
  x = f12(x);
  x = f13(x);
  x = f14(x);
  x = f15(x);
  o[threadIdx.x] = x;
}
