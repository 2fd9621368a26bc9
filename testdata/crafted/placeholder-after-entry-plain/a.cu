extern __global__ void child(int *p);

__global__ void parent(void **out)
{
	*out = (void *)child;
}
