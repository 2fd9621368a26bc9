texture<float, 1> t0;
texture<float, 1> t1;
texture<float, 1> t2;
texture<float, 1> t3;
texture<float, 1> t4;
texture<float, 1> t5;
texture<float, 1> t6;
texture<float, 1> t7;
texture<float, 1> t8;
__global__ void k1(float *o, int n) { o[0] = 0 + tex1Dfetch(t0, n+0) + tex1Dfetch(t1, n+1) + tex1Dfetch(t2, n+2) + tex1Dfetch(t3, n+3) + tex1Dfetch(t4, n+4) + tex1Dfetch(t5, n+5) + tex1Dfetch(t6, n+6) + tex1Dfetch(t7, n+7) + tex1Dfetch(t8, n+8); }
