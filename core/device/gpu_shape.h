/* Internal: the GPU-shape test mode (TDM_TEST_GPU_SHAPE=1, read when a context
 * loads its backends). Every device then looks like a discrete card: a GPU by its
 * description, no host address for the core, no memory shared with another device
 * (logical devices of one device included), so every transfer and collective takes
 * the path of separate cards on this machine's CPU drivers. */
#ifndef TDM_GPU_SHAPE_H
#define TDM_GPU_SHAPE_H

#include "device/backend.h"

/* Whether the environment asks for the mode. */
int tdm_gpu_shape_wanted(void);

/* The backend's table as the mode shows it: one table per backend, the same for
 * every device of it. */
const tdm_backend_ops *tdm_gpu_shape_ops(const tdm_backend_ops *ops);

/* Whether ops is such a table. */
int tdm_gpu_shaped(const tdm_backend_ops *ops);

#endif
