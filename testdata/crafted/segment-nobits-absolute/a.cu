// .nv.global.init: 9 bytes, 1-aligned (gc); .nv.global: 256 bytes,
// 256-aligned (big); the kernel's .nv.shared.<k>: 20 bytes, 4-aligned.
// .nv.global.init starts off a 256-byte boundary in the file, so the
// memory-only part's start differs whether it is aligned in the file or
// from the segment's start.
__device__ char gc[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
__device__ __align__(256) char big[256];
__global__ void k(int *o)
{
	__shared__ int s[5];
	s[threadIdx.x] = o[threadIdx.x] + gc[threadIdx.x];
	__syncthreads();
	o[0] = s[4] + big[o[1]];
}
