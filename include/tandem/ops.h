/* tandem: element-wise operations on float32 tensors (and casts to and from float16,
 * and to int32), and embedding lookups, run on the tensors' device.
 * Every tensor of one call lives on the same device and, but for the embeddings, has
 * the same element count. Calls are asynchronous and ordered like every other
 * operation on the device; tdm_tensor_read waits for them. */
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
/* z = x + y, z = x - y, z = x * y (z may be x or y); f32, or for add also all three
 * f16 (activations stored in half: the sum rounded to nearest even) */
TDM_API tdm_status tdm_op_add(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y);
TDM_API tdm_status tdm_op_sub(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y);
TDM_API tdm_status tdm_op_mul(tdm_tensor *z, const tdm_tensor *x, const tdm_tensor *y);
/* y[r, y_first + c] = x[r, x_first + c] for c < cols: x viewed as rows of x_width
 * columns, y as the same number of rows of y_width, both f32 on one device (the bits
 * copied as they are); y's other columns keep their values. A concatenation on the
 * last axis: each input into its columns of the output, and the gradient's columns
 * back out. Spans of one buffer that overlap (from the first element copied to the
 * last, of y and of x) are refused: the work-items run in no set order. */
TDM_API tdm_status tdm_op_copy_columns(tdm_tensor *y, size_t y_width, size_t y_first,
                                       const tdm_tensor *x, size_t x_width, size_t x_first,
                                       size_t cols);
/* y = x converted between f32 and f16 (one of each, either way), or from f32 to i32:
 * to f16 rounded to nearest even, overflowing to infinity; to f32 exactly; to i32
 * truncated toward zero, NaN and values outside (-2^31, 2^31) giving INT32_MIN. Needs
 * no f16 support in the device. An f16 tensor must start on an even element (a slice
 * at an odd offset is refused). */
TDM_API tdm_status tdm_op_cast(tdm_tensor *y, const tdm_tensor *x);

/* y [n, dim] = row ids[i] of table [vocab, dim] for each i < n; ids is I32 with n
 * elements (any shape); an id outside [0, vocab) gives a row of zeros. The rows are
 * copied bit for bit. vocab is at most INT32_MAX. */
TDM_API tdm_status tdm_op_embedding_lookup(tdm_tensor *y, const tdm_tensor *table,
                                           const tdm_tensor *ids);
/* dtable [vocab, dim] = for each row v, the sum over i < n, in order, of dy[i, :] where
 * ids[i] == v (zeros where no id is v); dtable is overwritten; dy is [n, dim] and ids
 * as for the lookup (an id outside [0, vocab) adds nothing). Deterministic: each sum
 * runs in float in the ids' order, bitwise alike on every device and every run. */
TDM_API tdm_status tdm_op_embedding_grad(tdm_tensor *dtable, const tdm_tensor *dy,
                                         const tdm_tensor *ids);

#ifdef __cplusplus
}
#endif
#endif
