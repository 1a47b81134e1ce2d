/* Internal: a sum and its scaling in one launch (a mean loss: the per-example losses'
 * sum times 1 / batch). */
#ifndef TDM_CORE_OPS_SUM_H
#define TDM_CORE_OPS_SUM_H

#include "tandem/tensor.h"

/* out (one element) = alpha * tdm_op_sum(x), bitwise its result scaled by
 * tdm_op_scale: the sum is rounded to float, then multiplied. */
tdm_status tdm_op_sum_scaled(tdm_tensor *out, const tdm_tensor *x, float alpha);

#endif
