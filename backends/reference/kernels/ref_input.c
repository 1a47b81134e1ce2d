/* The input pipeline's kernel, rows of a cached dataset gathered by index, and its
 * adjoint, an embedding table's gradient; blocks of columns copied between matrices
 * (a concatenation's). */
#include "ref_kernels.h"

/* 32-bit words, copied as they are: float32 features and int32 labels alike. */
void ref_gather_rows(const ref_gather_rows_args *args)
{
    uint32_t *y = args->y, *x = args->x, *idx = args->idx;
    uint32_t rows = args->rows, cols = args->cols, src_rows = args->src_rows;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            y[(size_t)r * cols + c] = idx[r] < src_rows ? x[(size_t)idx[r] * cols + c] : 0u;
}

/* Row by row, each dy row added to its index's row of dx: every element's sum still
 * runs over the rows in increasing order, in float, from dx's value. */
void ref_gather_rows_grad(const ref_gather_rows_grad_args *args)
{
    float *dx = args->dx, *dy = args->dy;
    uint32_t *idx = args->idx, rows = args->rows, cols = args->cols;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; idx[r] < args->src_rows && c < cols; c++)
            dx[(size_t)idx[r] * cols + c] += dy[(size_t)r * cols + c];
}

/* Row by row, 32-bit words as they are; the columns between stay. */
void ref_copy_columns(const ref_copy_columns_args *args)
{
    uint32_t *y = args->y, *x = args->x;
    for (uint32_t r = 0; r < args->rows; r++)
        for (uint32_t c = 0; c < args->cols; c++)
            y[(size_t)r * args->ldc + c] = x[(size_t)r * args->lda + c];
}
