/* tanh: y[i] = tanh(x[i]), i in [0, n). */

#define TDM_ACTIVATION4 tdm_tanh4
#include "activations.clh"
