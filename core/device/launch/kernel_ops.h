/* Internal: operations composed of several kernels of the table. */
#ifndef TDM_CORE_KERNEL_OPS_H
#define TDM_CORE_KERNEL_OPS_H

#include "kernel/kernel.h"

/* Elements per partial sum: one work-group each, long enough to amortise it. */
#define TDM_NORM_CHUNK 65536u

/* Floats of scratch tdm_global_norm needs for these tensors (element counts). */
size_t tdm_global_norm_scratch(const size_t *elements, size_t count);

/* out (one float) = sqrt(sum over the tensors of sum of squares): the global L2 norm
 * that clip-by-global-norm divides by. The tensors are float views on dev; scratch
 * holds at least tdm_global_norm_scratch floats. Asynchronous, like every launch. */
tdm_status tdm_global_norm(tdm_device *dev, const tdm_buffer_view *tensors, size_t count,
                           const tdm_buffer_view *scratch, const tdm_buffer_view *out);

#endif
