/* tdm_ops_gemm_batched on every device: batches of products read through two levels
 * of strides, against a double-precision host product within gemm's tolerance
 * (kernels.def: 2^-18 times the sum of the terms' magnitudes), for every transpose,
 * heads > 1, offsets and leading dimensions off any tile's multiple; attention's own
 * S = Q K^T read in place from one QKV matrix; the elements between the matrices of C
 * untouched; refused arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ops/ops_batched.h"

static tdm_tensor *vector(tdm_device *dev, size_t n, const float *values)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n), &t));
    if (t)
        CHECK_OK(tdm_tensor_write(t, values, n * sizeof(float)));
    return t;
}

/* Values on a grid in [-2, 2), so that the host's double sums are exact. */
static float *random_values(size_t n, unsigned seed)
{
    float *v = malloc(n * sizeof *v);
    uint32_t *bits = malloc(n * sizeof *bits);
    CHECK(v && bits);
    test_random_bytes(bits, n * sizeof *bits, seed);
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(bits[i] >> 20) * 0x1p-10f - 2.0f;
    free(bits);
    return v;
}

static size_t at(const tdm_matrices *l, size_t heads, size_t i)
{
    return l->start + i / heads * l->outer + i % heads * l->inner;
}

/* Element (r, c) of op(X_i). */
static double element(const float *x, const tdm_matrices *l, size_t heads, size_t i, int trans,
                      size_t r, size_t c)
{
    size_t o = at(l, heads, i);
    return x[trans ? o + c * l->ld + r : o + r * l->ld + c];
}

/* Runs p on the device and checks every element of C against the host, and that C's
 * other elements kept their values. */
static void check_product(tdm_device *dev, const tdm_batched_product *p, size_t nc, size_t na,
                          size_t nb, int shared_ab)
{
    float *c0 = random_values(nc, 1), *a = random_values(na, 2);
    float *b = shared_ab ? a : random_values(nb, 3), *got = malloc(nc * sizeof *got);
    char *in_c = calloc(nc, 1);
    CHECK(got && in_c);
    tdm_tensor *tc = vector(dev, nc, c0), *ta = vector(dev, na, a);
    tdm_tensor *tb = shared_ab ? ta : vector(dev, nb, b);
    CHECK_OK(tdm_ops_gemm_batched(tc, ta, tb, p));
    CHECK_OK(tdm_tensor_read(tc, got, nc * sizeof *got));
    double worst = 0.0;
    for (size_t i = 0; i < p->batch; i++)
        for (size_t r = 0; r < p->m; r++)
            for (size_t col = 0; col < p->n; col++) {
                double sum = 0.0, terms = 0.0;
                for (size_t q = 0; q < p->k; q++) {
                    double t = element(a, &p->a, p->heads, i, p->trans_a, r, q) *
                               element(b, &p->b, p->heads, i, p->trans_b, q, col);
                    sum += t;
                    terms += fabs(t);
                }
                size_t o = at(&p->c, p->heads, i) + r * p->c.ld + col;
                double want = p->alpha * sum + p->beta * c0[o];
                double allowed = 0x1p-18 * (fabs(p->alpha) * terms + fabs(p->beta * c0[o])) + 1e-30;
                double miss = fabs(got[o] - want) / allowed;
                worst = miss > worst ? miss : worst;
                in_c[o] = 1;
            }
    CHECK(worst <= 1.0);
    for (size_t o = 0; o < nc; o++)
        CHECK(in_c[o] || got[o] == c0[o]);
    if (!shared_ab) {
        tdm_tensor_destroy(tb);
        free(b);
    }
    tdm_tensor_destroy(ta);
    tdm_tensor_destroy(tc);
    free(in_c);
    free(got);
    free(a);
    free(c0);
}

/* A layout of `batch` matrices of rows x cols: rows padded by 3, heads' matrices a
 * gap of 5 apart, outer steps 7 more, from element 9. */
static tdm_matrices spread(size_t rows, size_t cols, size_t heads, size_t *count, size_t batch)
{
    tdm_matrices l = {.start = 9, .ld = cols + 3};
    l.inner = rows * l.ld + 5;
    l.outer = heads * l.inner + 7;
    *count = l.start + (batch + heads - 1) / heads * l.outer;
    return l;
}

static void check_transposes(tdm_device *dev)
{
    for (int t = 0; t < 4; t++) {
        tdm_batched_product p = {.m = 19, .n = 23, .k = 37, .batch = 7, .heads = 3,
                                 .trans_a = t & 1, .trans_b = t >> 1, .alpha = 0.75f,
                                 .beta = t == 3 ? 0.0f : -0.5f};
        size_t nc, na, nb;
        p.c = spread(p.m, p.n, p.heads, &nc, p.batch);
        p.a = spread(p.trans_a ? p.k : p.m, p.trans_a ? p.m : p.k, p.heads, &na, p.batch);
        p.b = spread(p.trans_b ? p.n : p.k, p.trans_b ? p.k : p.n, p.heads, &nb, p.batch);
        check_product(dev, &p, nc, na, nb, 0);
    }
}

/* Attention's scores, S_(b,h) = Q_(b,h) K_(b,h)^T: Q and K are columns h * d and
 * C + h * d of the [B * T, 3C] product, S is [B * H * T, T]. */
static void check_attention_scores(tdm_device *dev)
{
    const size_t B = 2, H = 3, T = 70, d = 8, C = H * d;
    tdm_batched_product p = {.m = T, .n = T, .k = d, .batch = B * H, .heads = H,
                             .trans_b = 1, .alpha = 0.35f, .beta = 0.0f};
    p.a = (tdm_matrices){.start = 0, .ld = 3 * C, .outer = T * 3 * C, .inner = d};
    p.b = (tdm_matrices){.start = C, .ld = 3 * C, .outer = T * 3 * C, .inner = d};
    p.c = (tdm_matrices){.start = 0, .ld = T, .outer = H * T * T, .inner = T * T};
    check_product(dev, &p, B * H * T * T, B * T * 3 * C, 0, 1);
}

static void check_refusals(tdm_device *dev)
{
    float v[64] = {0};
    tdm_tensor *x = vector(dev, 64, v);
    tdm_batched_product p = {.m = 2, .n = 2, .k = 2, .batch = 4, .heads = 2, .alpha = 1.0f};
    p.a = p.b = p.c = (tdm_matrices){.start = 0, .ld = 2, .outer = 8, .inner = 4};
    CHECK_OK(tdm_ops_gemm_batched(x, x, x, &p));
    p.c.start = 49; /* the last matrix, at 49 + 8 + 4, ends past 64 */
    CHECK_FAILS(tdm_ops_gemm_batched(x, x, x, &p), TDM_ERR_INVALID_ARGUMENT,
                "c's matrices of 2 x 2 (ld 2) reach past its 64 elements");
    p.c.start = 0, p.a.ld = 1;
    CHECK_FAILS(tdm_ops_gemm_batched(x, x, x, &p), TDM_ERR_INVALID_ARGUMENT,
                "a's leading dimension 1 must hold a row of 2");
    p.a.ld = 2, p.heads = 0;
    CHECK_FAILS(tdm_ops_gemm_batched(x, x, x, &p), TDM_ERR_INVALID_ARGUMENT, "heads 0");
    tdm_tensor_destroy(x);
}

void test_case_gemm_batched(const test_run *run)
{
    for (size_t d = 0; d < run->n_devs; d++) {
        check_transposes(run->devs[d]);
        check_attention_scores(run->devs[d]);
    }
    check_refusals(run->devs[0]);
}
