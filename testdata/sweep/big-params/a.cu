struct P { float v[900]; };
__global__ void k(P prm, float* p, int n) { p[threadIdx.x] = prm.v[threadIdx.x % 900] + n; }
__global__ void k2(float* p, int n, double d, char c, short s, long long l) { p[0] = d + c + s + l + n; }
