/* GEMM, row-major: C = alpha * op(A) * op(B) + beta * C, dot products in double.
 * gemm_f16 reads A and B as float16, each half exact in float. */
#include <stddef.h>

#include "ref_kernels.h"

typedef float (*load_fn)(const void *base, size_t i);

static float load_f32(const void *base, size_t i)
{
    return ((const float *)base)[i];
}

static float load_f16(const void *base, size_t i)
{
    return tdm_f32_from_f16(((const uint16_t *)base)[i]);
}

/* The scalars of gemm and gemm_f16, which share them. */
typedef struct gemm_shape {
    uint32_t m, n, k, lda, ldb, ldc;
    int ta, tb;
    float alpha, beta;
} gemm_shape;

static void gemm(const gemm_shape *g, float *c, const void *a, const void *b, load_fn load)
{
    for (uint32_t i = 0; i < g->m; i++)
        for (uint32_t j = 0; j < g->n; j++) {
            double dot = 0.0;
            for (uint32_t p = 0; p < g->k; p++) {
                float av = load(a, g->ta ? (size_t)p * g->lda + i : (size_t)i * g->lda + p);
                float bv = load(b, g->tb ? (size_t)j * g->ldb + p : (size_t)p * g->ldb + j);
                dot += (double)av * bv;
            }
            float *out = &c[(size_t)i * g->ldc + j];
            /* beta == 0 ignores C's old contents, NaN included (BLAS convention), and
             * adds nothing, not even +0, which would turn a product's -0 into +0 */
            *out =
                (float)(g->beta == 0.0f ? g->alpha * dot : g->alpha * dot + (double)g->beta * *out);
        }
}

#define GEMM_SHAPE(args)                                                                           \
    {                                                                                              \
        args->m, args->n, args->k, args->lda, args->ldb, args->ldc, args->trans_a != 0,            \
            args->trans_b != 0, args->alpha, args->beta                                            \
    }

void ref_gemm(const ref_gemm_args *args)
{
    const gemm_shape g = GEMM_SHAPE(args);
    gemm(&g, args->c, args->a, args->b, load_f32);
}

void ref_gemm_f16(const ref_gemm_f16_args *args)
{
    const gemm_shape g = GEMM_SHAPE(args);
    gemm(&g, args->c, args->a, args->b, load_f16);
}
