/* Causal multi-head attention, forward and backward, composed as design/014 writes
 * it on every device: the strided batched products read Q, K and V in place from
 * one [B * T, 3C] matrix and write O and the gradient of QKV the same way, the
 * attention softmax and its gradient between them; against a double-precision
 * host computation. The tolerance, 1e-4 of a value's size plus 1e-5, is far above
 * float rounding over sums of 8 to 10 terms and far below what a wrong stride,
 * head, transpose or mask gives. */
#include <math.h>
#include <stdlib.h>

#include "kernel/kernel_args.h"
#include "harness.h"
#include "ops/ops_batched.h"

enum { B = 2, H = 2, T = 10, D = 4, C = H * D, ROWS = B * H * T };
#define SCALE 0.5f

static tdm_tensor *vector(tdm_device *dev, size_t n, const float *values)
{
    tdm_tensor *t = NULL;
    CHECK_OK(tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n), &t));
    if (t && values)
        CHECK_OK(tdm_tensor_write(t, values, n * sizeof(float)));
    return t;
}

/* Layouts: a head's block of D columns in a [B * T, width] matrix from column
 * `column`, and a [T, T] matrix of the [B * H * T, T] scores. */
static tdm_matrices heads_of(size_t width, size_t column)
{
    return (tdm_matrices){.start = column, .ld = width, .outer = T * width, .inner = D};
}

static tdm_matrices scores(void)
{
    return (tdm_matrices){.start = 0, .ld = T, .outer = H * T * T, .inner = T * T};
}

static void product(tdm_tensor *c, tdm_matrices lc, const tdm_tensor *a, tdm_matrices la,
                    int ta, const tdm_tensor *b, tdm_matrices lb, int tb, size_t m, size_t n,
                    size_t k)
{
    tdm_batched_product p = {.m = m, .n = n, .k = k, .batch = B * H, .heads = H, .trans_a = ta,
                             .trans_b = tb, .alpha = 1.0f, .beta = 0.0f, .c = lc, .a = la, .b = lb};
    CHECK_OK(tdm_ops_gemm_batched(c, a, b, &p));
}

/* The host's attention of head (b, h) in double: o, and with do_ the gradient of qkv. */
static void host_head(const float *qkv, const float *d_o, double *o, double *dqkv, int b, int h)
{
    double p[T][T], dp[T][T];
#define Q(i, c) qkv[((size_t)b * T + (i)) * 3 * C + h * D + (c)]
#define K(i, c) qkv[((size_t)b * T + (i)) * 3 * C + C + h * D + (c)]
#define V(i, c) qkv[((size_t)b * T + (i)) * 3 * C + 2 * C + h * D + (c)]
#define AT(x, i, width, c) x[((size_t)b * T + (i)) * (width) + h * D + (c)]
    for (int i = 0; i < T; i++) {
        double mx = -INFINITY, sum = 0.0;
        for (int j = 0; j <= i; j++) {
            p[i][j] = 0.0;
            for (int c = 0; c < D; c++)
                p[i][j] += (double)Q(i, c) * K(j, c);
            p[i][j] *= SCALE;
            mx = p[i][j] > mx ? p[i][j] : mx;
        }
        for (int j = 0; j <= i; j++)
            sum += p[i][j] = exp(p[i][j] - mx);
        for (int j = 0; j < T; j++)
            p[i][j] = j <= i ? p[i][j] / sum : 0.0;
        for (int c = 0; c < D; c++) {
            AT(o, i, C, c) = 0.0;
            for (int j = 0; j < T; j++)
                AT(o, i, C, c) += p[i][j] * V(j, c);
        }
    }
    for (int i = 0; i < T; i++) {
        double dot = 0.0;
        for (int j = 0; j < T; j++) {
            dp[i][j] = 0.0;
            for (int c = 0; c < D; c++)
                dp[i][j] += (double)AT(d_o, i, C, c) * V(j, c);
            dot += dp[i][j] * p[i][j];
        }
        for (int j = 0; j < T; j++) /* dS, the scores' gradient */
            dp[i][j] = SCALE * p[i][j] * (dp[i][j] - dot);
    }
    for (int i = 0; i < T; i++)
        for (int c = 0; c < D; c++) {
            double dq = 0.0, dk = 0.0, dv = 0.0;
            for (int j = 0; j < T; j++) {
                dq += dp[i][j] * K(j, c);
                dk += dp[j][i] * Q(j, c);
                dv += p[j][i] * AT(d_o, j, C, c);
            }
            AT(dqkv, i, 3 * C, c) = dq;
            AT(dqkv, i, 3 * C, C + c) = dk;
            AT(dqkv, i, 3 * C, 2 * C + c) = dv;
        }
#undef Q
#undef K
#undef V
#undef AT
}

static void check_close(const float *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK(fabs(got[i] - want[i]) <= 1e-4 * fabs(want[i]) + 1e-5);
}

static void check_attention(tdm_device *dev)
{
    static float qkv[B * T * 3 * C], d_o[B * T * C], o[B * T * C], dqkv[B * T * 3 * C];
    static double want_o[B * T * C], want_dqkv[B * T * 3 * C];
    test_random_bytes(qkv, sizeof qkv, 11);
    test_random_bytes(d_o, sizeof d_o, 12);
    uint32_t *bits = (uint32_t *)qkv;
    for (size_t i = 0; i < B * T * 3 * C; i++)
        qkv[i] = (float)(bits[i] >> 8) * 0x1p-23f - 1.0f;
    bits = (uint32_t *)d_o;
    for (size_t i = 0; i < B * T * C; i++)
        d_o[i] = (float)(bits[i] >> 8) * 0x1p-23f - 1.0f;
    tdm_tensor *tqkv = vector(dev, B * T * 3 * C, qkv), *tdo = vector(dev, B * T * C, d_o);
    tdm_tensor *s = vector(dev, ROWS * T, NULL), *p = vector(dev, ROWS * T, NULL);
    tdm_tensor *to = vector(dev, B * T * C, NULL), *tdqkv = vector(dev, B * T * 3 * C, NULL);
    /* forward: S = Q K^T, P = softmax(scale S) with the causal mask, O = P V */
    product(s, scores(), tqkv, heads_of(3 * C, 0), 0, tqkv, heads_of(3 * C, C), 1, T, T, D);
    tdm_attention_softmax_args sm = {.p = tdm_tensor_view(p), .s = tdm_tensor_view(s),
                                     .rows = ROWS, .cols = T, .causal = 1, .scale = SCALE};
    CHECK_OK(tdm_attention_softmax_run(dev, &sm));
    product(to, heads_of(C, 0), p, scores(), 0, tqkv, heads_of(3 * C, 2 * C), 0, T, D, T);
    /* backward: dP = dO V^T (into s), dS, dQ = dS K, dK = dS^T Q, dV = P^T dO */
    product(s, scores(), tdo, heads_of(C, 0), 0, tqkv, heads_of(3 * C, 2 * C), 1, T, T, D);
    tdm_tensor *ds = vector(dev, ROWS * T, NULL);
    tdm_attention_softmax_grad_args g = {.ds = tdm_tensor_view(ds), .dp = tdm_tensor_view(s),
                                         .p = tdm_tensor_view(p), .rows = ROWS, .cols = T,
                                         .causal = 1, .scale = SCALE};
    CHECK_OK(tdm_attention_softmax_grad_run(dev, &g));
    product(tdqkv, heads_of(3 * C, 0), ds, scores(), 0, tqkv, heads_of(3 * C, C), 0, T, D, T);
    product(tdqkv, heads_of(3 * C, C), ds, scores(), 1, tqkv, heads_of(3 * C, 0), 0, T, D, T);
    product(tdqkv, heads_of(3 * C, 2 * C), p, scores(), 1, tdo, heads_of(C, 0), 0, T, D, T);
    CHECK_OK(tdm_tensor_read(to, o, sizeof o));
    CHECK_OK(tdm_tensor_read(tdqkv, dqkv, sizeof dqkv));
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            host_head(qkv, d_o, want_o, want_dqkv, b, h);
    check_close(o, want_o, B * T * C);
    check_close(dqkv, want_dqkv, B * T * 3 * C);
    tdm_tensor_destroy(ds);
    tdm_tensor_destroy(tdqkv);
    tdm_tensor_destroy(to);
    tdm_tensor_destroy(p);
    tdm_tensor_destroy(s);
    tdm_tensor_destroy(tdo);
    tdm_tensor_destroy(tqkv);
}

void test_case_attention_ops(const test_run *run)
{
    for (size_t d = 0; d < run->n_devs; d++)
        check_attention(run->devs[d]);
}
