static __global__ void sk(int *p){ *p = 2; }
int main(){ int *p=0; sk<<<1,1>>>(p); return 0; }
