/* The input pipeline's kernel: rows of a cached dataset gathered by index. */
#include "ref_kernels.h"

/* 32-bit words, copied as they are: float32 features and int32 labels alike. */
void ref_gather_rows(const tdm_launch *l)
{
    uint32_t *y = ref_u(l, 0), *x = ref_u(l, 1), *idx = ref_u(l, 2);
    uint32_t rows = l->u[0], cols = l->u[1], src_rows = l->u[2];
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            y[(size_t)r * cols + c] = idx[r] < src_rows ? x[(size_t)idx[r] * cols + c] : 0u;
}
