/* gelu: y[i] = x / 2 * (1 + erf(x / sqrt(2))) = x * Phi(x), x = x[i] (exact GELU,
 * TensorFlow's default), i in [0, n). */

#define TDM_ACTIVATION4 tdm_gelu4
#include "activations.clh"
