/* Internal: a batch of matrix products over matrices found through strides in their
 * tensors (attention's heads read in place from one QKV product, design/014). */
#ifndef TDM_CORE_OPS_BATCHED_H
#define TDM_CORE_OPS_BATCHED_H

#include <stddef.h>

#include "tandem/tensor.h"

/* Where a batch's matrices lie in a tensor of f32: matrix i starts at element
 * start + (i / heads) * outer + (i % heads) * inner, rows ld elements apart. */
typedef struct tdm_matrices {
    size_t start, ld, outer, inner;
} tdm_matrices;

/* For i in [0, batch): C_i = alpha * op(A_i) op(B_i) + beta * C_i, op(A_i) m x k,
 * op(B_i) k x n, as gemm's (kernels.def) with trans_a and trans_b; beta 0 ignores
 * C's old contents. heads (at least 1) splits i into the two levels of the offsets. */
typedef struct tdm_batched_product {
    size_t m, n, k, batch, heads;
    int trans_a, trans_b;
    float alpha, beta;
    tdm_matrices c, a, b;
} tdm_batched_product;

/* The batch as one gemm launch per matrix, each on views of its matrices, so that
 * every backend's GEMM path (OpenBLAS, CLBlast, Vulkan's tiles) serves it. Refuses
 * matrices past their tensors and leading dimensions below a stored row. */
tdm_status tdm_ops_gemm_batched(tdm_tensor *c, const tdm_tensor *a, const tdm_tensor *b,
                                const tdm_batched_product *p);

#endif
