/* GEMM, row-major: C = alpha * op(A) * op(B) + beta * C, dot products in double. */
#include "ref_kernels.h"

void ref_gemm(const tdm_launch *l)
{
    float *c = ref_f(l, 0), *a = ref_f(l, 1), *b = ref_f(l, 2);
    uint32_t m = l->u[0], n = l->u[1], k = l->u[2], lda = l->u[3], ldb = l->u[4], ldc = l->u[5];
    int ta = l->u[6] != 0, tb = l->u[7] != 0;
    float alpha = l->f[0], beta = l->f[1];
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
