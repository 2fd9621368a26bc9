#include "shape.h"
__global__ void ka(float *o) { Sq q(o[0]); Shape *p = &q; o[1] = p->area(); Shape *h = new Sq(o[2]); o[3] = h->area(); delete h; }
