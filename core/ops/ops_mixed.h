/* Internal: matrix products in mixed precision, for callers that keep scratch for the
 * operands' float16 copies (a model keeps one pair per replica). */
#ifndef TDM_CORE_OPS_MIXED_H
#define TDM_CORE_OPS_MIXED_H

#include "tandem/tensor.h"

/* Two f16 tensors, each at least as large as any operand given; NULL members: the
 * products stay f32. */
typedef struct tdm_halves {
    tdm_tensor *a, *b;
} tdm_halves;

/* c = alpha * op(a) * op(b) + beta * c, as tdm_op_matmul. With halves (h and its
 * members non-NULL), a and b are first rounded to f16 into the first elements of
 * h->a and h->b, where they are f32 (an f16 operand is used as it is), and the halves
 * are multiplied with f32 sums. */
tdm_status tdm_matmul_mixed(const tdm_halves *h, tdm_tensor *c, const tdm_tensor *a, int trans_a,
                            const tdm_tensor *b, int trans_b, float alpha, float beta);

#endif
