struct Node { float v; Node* next; };
__device__ __noinline__ Node* make(float v) { Node* n = new Node; n->v = v; n->next = nullptr; return n; }
__global__ void k(float* p, int n) { Node* a = make(p[0]); p[0] = a->v + n; delete a; float* arr = new float[8]; arr[0] = 1; p[1] = arr[0]; delete[] arr; }
