__global__ void child(int *p)
{
	*p = 1;
}
