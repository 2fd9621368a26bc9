struct Shape { __device__ virtual float area() const { return 0; } __device__ virtual ~Shape() {} };
struct Sq : Shape { float s; __device__ Sq(float x) : s(x) {} __device__ float area() const override { return s * s; } };
