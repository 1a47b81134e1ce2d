/* tandem: element-wise operations on float32 tensors (and casts to and from float16),
 * run on the tensors' device.
 * Every tensor of one call lives on the same device and has the same element
 * count. Calls are asynchronous and ordered like every other operation on the
 * device; tdm_tensor_read waits for them. */
#ifndef TANDEM_OPS_H
#define TANDEM_OPS_H

#include "tandem/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = value */
TDM_API tdm_status tdm_op_fill(tdm_tensor *y, float value);
/* y = alpha * x (y may be x) */
TDM_API tdm_status tdm_op_scale(tdm_tensor *y, const tdm_tensor *x, float alpha);
/* y += alpha * x */
TDM_API tdm_status tdm_op_axpy(tdm_tensor *y, float alpha, const tdm_tensor *x);
/* z = x + y, z = x - y, z = x * y (z may be x or y) */
TDM_API tdm_status tdm_op_add(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y);
TDM_API tdm_status tdm_op_sub(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y);
TDM_API tdm_status tdm_op_mul(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y);
/* y = x converted between f32 and f16 (one of each, either way): to f16 rounded to
 * nearest even, overflowing to infinity; to f32 exactly. Needs no f16 support in the
 * device. An f16 tensor must start on an even element (a slice at an odd offset is
 * refused). */
TDM_API tdm_status tdm_op_cast(tdm_tensor *y, const tdm_tensor *x);

#ifdef __cplusplus
}
#endif
#endif
