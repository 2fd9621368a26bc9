// .nv.global.init: 12 bytes, 8-aligned (gd, gi); .nv.global: 1 byte (gc);
// the kernel's .nv.shared.<k>: 20 bytes, 4-aligned. The NOBITS sections'
// largest alignment is 4, the segment's 8.
__device__ double gd = 1.5;
__device__ int gi = 3;
__device__ char gc;
__global__ void k(int *o)
{
	__shared__ int s[5];
	s[threadIdx.x] = o[threadIdx.x] + gc;
	__syncthreads();
	o[0] = s[4] + gi + (int)gd;
}
