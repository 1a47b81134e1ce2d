/* adamw: decoupled weight decay with the old w, w -= weight_decay * w, then adam
 * (adam_update.clh). Tolerance 8 ulps, rel 2^-21. */

#define TDM_DECAYED(w) ((w) - weight_decay * (w))
#include "adam_update.clh"
