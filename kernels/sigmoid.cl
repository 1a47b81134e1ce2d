/* sigmoid: y[i] = 1 / (1 + exp(-x[i])), i in [0, n). */

#define TDM_ACTIVATION4 tdm_sigmoid4
#include "activations.clh"
