template<int N> __global__ void tk(int *p){ __shared__ int s[N]; s[threadIdx.x]=p[0]; __syncthreads(); p[1]=s[threadIdx.x+1]; }
__global__ void gk(int *p){ __shared__ int s[8]; s[threadIdx.x]=p[0]; __syncthreads(); p[1]=s[threadIdx.x+1]; }
__global__ void gk0(int *p){ p[2]=1; }
template<int N> __global__ void tk0(int *p){ p[3]=N; }
__global__ void root(int *p){ tk<11><<<1,1>>>(p); gk<<<1,1>>>(p); gk0<<<1,1>>>(p); tk0<3><<<1,1>>>(p); }
