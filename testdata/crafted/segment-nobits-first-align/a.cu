// .nv.global.init: 9 bytes, 1-aligned (gc); the kernel's .nv.shared.<k>:
// 40 bytes, 8-aligned, first of the NOBITS sections; .nv.global: an int,
// 4-aligned (gz), last. The largest alignment is the first NOBITS
// section's, not the last one's.
__device__ char gc[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
__device__ int gz;
__global__ void k(int *o)
{
	__shared__ double s[5];
	s[threadIdx.x] = o[threadIdx.x] + gc[threadIdx.x];
	__syncthreads();
	o[0] = (int)s[4] + gz;
}
