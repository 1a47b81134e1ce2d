/* add: z[i] = x[i] + y[i], i in [0, n). Tolerance 0. */

#define TDM_BINARY(a, b) ((a) + (b))
#include "binary.clh"
