/* bench gemm's operands on the host and on a device, the product through
 * tdm_op_matmul and its check against a double sum at sampled elements. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_clock.h"
#include "bench_gemm.h"

#define CHECKED_ELEMENTS 64

/* Multiples of 1/16 in [-1, 1]: exact in half, and products and sums stay well
 * inside float. */
static void fill(float *x, size_t count, unsigned seed)
{
    for (size_t i = 0; i < count; i++)
        x[i] = (float)((int)((i * 2654435761u + seed * 40503u) % 33u) - 16) / 16.0f;
}

/* The half of x, which fill's grid keeps normal or zero (a power of two above 2^-14
 * times at most 11 significant bits): the exponent rebased, the mantissa cut. */
static uint16_t half_of(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000u);
    if ((bits & 0x7fffffffu) == 0)
        return sign;
    uint32_t exponent = ((bits >> 23) & 0xffu) - 127u + 15u, mantissa = (bits >> 13) & 0x3ffu;
    return (uint16_t)(sign | exponent << 10 | mantissa);
}

static tdm_status upload(tdm_device *dev, const gemm_data *d, const float *x, const uint16_t *x16,
                         tdm_tensor **t)
{
    size_t count = d->n * d->n;
    tdm_status s = tdm_tensor_create(dev, d->f16 ? TDM_F16 : TDM_F32, &TDM_SHAPE(d->n, d->n), t);
    if (s == TDM_OK)
        s = d->f16 ? tdm_tensor_write(*t, x16, count * sizeof *x16)
                   : tdm_tensor_write(*t, x, count * sizeof *x);
    return s;
}

tdm_status gemm_data_begin(tdm_device *dev, size_t n, int f16, gemm_data *d)
{
    size_t count = n * n;
    memset(d, 0, sizeof *d);
    d->n = n;
    d->f16 = f16;
    d->a = malloc(count * sizeof *d->a);
    d->b = malloc(count * sizeof *d->b);
    d->c = malloc(count * sizeof *d->c);
    d->a16 = malloc(count * sizeof *d->a16);
    d->b16 = malloc(count * sizeof *d->b16);
    if (!d->a || !d->b || !d->c || !d->a16 || !d->b16)
        return TDM_ERR_OUT_OF_MEMORY;
    fill(d->a, count, 1);
    fill(d->b, count, 2);
    for (size_t i = 0; i < count; i++) {
        d->a16[i] = half_of(d->a[i]);
        d->b16[i] = half_of(d->b[i]);
    }
    tdm_status s = upload(dev, d, d->a, d->a16, &d->ta);
    if (s == TDM_OK)
        s = upload(dev, d, d->b, d->b16, &d->tb);
    if (s == TDM_OK)
        s = tdm_tensor_create(dev, TDM_F32, &TDM_SHAPE(n, n), &d->tc);
    return s;
}

void gemm_data_end(gemm_data *d)
{
    tdm_tensor_destroy(d->ta);
    tdm_tensor_destroy(d->tb);
    tdm_tensor_destroy(d->tc);
    free(d->a);
    free(d->b);
    free(d->c);
    free(d->a16);
    free(d->b16);
}

tdm_status gemm_data_run(tdm_device *dev, gemm_data *d, int trans_a, int trans_b, double *seconds)
{
    double t0 = bench_seconds();
    tdm_status s = tdm_op_matmul(d->tc, d->ta, trans_a, d->tb, trans_b, 1.0f, 0.0f);
    if (s == TDM_OK)
        s = tdm_device_finish(dev);
    *seconds = bench_seconds() - t0;
    return s;
}

tdm_status gemm_data_check(gemm_data *d, int trans_a, int trans_b, size_t *wrong)
{
    size_t n = d->n;
    tdm_status s = tdm_tensor_read(d->tc, d->c, n * n * sizeof *d->c);
    *wrong = 0;
    for (size_t e = 0; e < CHECKED_ELEMENTS && s == TDM_OK; e++) {
        size_t i = (e * 7919u) % n, j = (e * 104729u) % n;
        double want = 0, magnitude = 0;
        for (size_t p = 0; p < n; p++) {
            double x = trans_a ? d->a[p * n + i] : d->a[i * n + p];
            double y = trans_b ? d->b[j * n + p] : d->b[p * n + j];
            want += x * y;
            magnitude += fabs(x * y);
        }
        *wrong += fabs(d->c[i * n + j] - want) > 0x1p-18 * magnitude + 1e-30;
    }
    return s;
}
