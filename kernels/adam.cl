/* adam: TensorFlow's ApplyAdam (adam_update.clh). Tolerance 8 ulps, rel 2^-21. */

#define TDM_DECAYED(w) (w)
#include "adam_update.clh"
