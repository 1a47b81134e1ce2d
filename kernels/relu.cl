/* relu: y[i] = max(x[i], 0), NaN stays NaN, i in [0, n). Tolerance 0. */

#define TDM_ACTIVATION4 tdm_relu4
#include "activations.clh"
