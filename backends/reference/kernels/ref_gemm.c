/* GEMM, row-major: C = alpha * op(A) * op(B) + beta * C, dot products in double. */
#include "ref_kernels.h"

void ref_gemm(const ref_gemm_args *args)
{
    float *c = args->c, *a = args->a, *b = args->b;
    uint32_t m = args->m, n = args->n, k = args->k, lda = args->lda, ldb = args->ldb,
             ldc = args->ldc;
    int ta = args->trans_a != 0, tb = args->trans_b != 0;
    float alpha = args->alpha, beta = args->beta;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++) {
            double dot = 0.0;
            for (uint32_t p = 0; p < k; p++) {
                float av = ta ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p];
                float bv = tb ? b[(size_t)j * ldb + p] : b[(size_t)p * ldb + j];
                dot += (double)av * bv;
            }
            float *out = &c[(size_t)i * ldc + j];
            /* beta == 0 ignores C's old contents, NaN included (BLAS convention) */
            *out = (float)(alpha * dot + (beta == 0.0f ? 0.0 : (double)beta * *out));
        }
}
