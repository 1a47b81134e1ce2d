/* Elementwise kernels and the collective building block, as kernels.def states them. */
#include <math.h>

#include "ref_kernels.h"

void ref_fill(const tdm_launch *l)
{
    float *y = ref_f(l, 0);
    for (uint32_t i = 0; i < l->u[0]; i++)
        y[i] = l->f[0];
}

void ref_copy(const tdm_launch *l)
{
    float *y = ref_f(l, 0), *x = ref_f(l, 1);
    for (uint32_t i = 0; i < l->u[0]; i++)
        y[i] = x[i];
}

void ref_scale(const tdm_launch *l)
{
    float *y = ref_f(l, 0), *x = ref_f(l, 1);
    for (uint32_t i = 0; i < l->u[0]; i++)
        y[i] = l->f[0] * x[i];
}

/* In double: the exact alpha * x + y, rounded once. */
void ref_axpy(const tdm_launch *l)
{
    float *y = ref_f(l, 0), *x = ref_f(l, 1);
    for (uint32_t i = 0; i < l->u[0]; i++)
        y[i] = (float)((double)l->f[0] * x[i] + y[i]);
}

void ref_add(const tdm_launch *l)
{
    float *z = ref_f(l, 0), *x = ref_f(l, 1), *y = ref_f(l, 2);
    for (uint32_t i = 0; i < l->u[0]; i++)
        z[i] = x[i] + y[i];
}

void ref_sub(const tdm_launch *l)
{
    float *z = ref_f(l, 0), *x = ref_f(l, 1), *y = ref_f(l, 2);
    for (uint32_t i = 0; i < l->u[0]; i++)
        z[i] = x[i] - y[i];
}

void ref_mul(const tdm_launch *l)
{
    float *z = ref_f(l, 0), *x = ref_f(l, 1), *y = ref_f(l, 2);
    for (uint32_t i = 0; i < l->u[0]; i++)
        z[i] = x[i] * y[i];
}

void ref_sqrt(const tdm_launch *l)
{
    float *y = ref_f(l, 0), *x = ref_f(l, 1);
    for (uint32_t i = 0; i < l->u[0]; i++)
        y[i] = sqrtf(x[i]);
}

void ref_cast_f32_f16(const tdm_launch *l)
{
    uint16_t *y = ref_h(l, 0);
    float *x = ref_f(l, 1);
    for (uint32_t i = 0; i < l->u[0]; i++)
        y[i] = ref_f32_to_f16(x[i]);
}

void ref_cast_f16_f32(const tdm_launch *l)
{
    float *y = ref_f(l, 0);
    uint16_t *x = ref_h(l, 1);
    for (uint32_t i = 0; i < l->u[0]; i++)
        y[i] = ref_f16_to_f32(x[i]);
}

/* Left to right in float: the order every backend must follow. */
void ref_accumulate(const tdm_launch *l)
{
    float *y = ref_f(l, 0);
    uint32_t inputs = l->u[1];
    for (uint32_t i = 0; i < l->u[0]; i++) {
        float sum = ref_f(l, 1)[i];
        for (uint32_t k = 1; k < inputs; k++)
            sum += ref_f(l, 1 + (int)k)[i];
        y[i] = sum;
    }
}

/* The same sum as accumulate, then one rounding for the scale. */
void ref_accumulate_pair(const tdm_launch *l)
{
    float *y0 = ref_f(l, 0), *y1 = ref_f(l, 1), alpha = l->f[0];
    uint32_t inputs = l->u[1];
    for (uint32_t i = 0; i < l->u[0]; i++) {
        float sum = ref_f(l, 2)[i];
        for (uint32_t k = 1; k < inputs; k++)
            sum += ref_f(l, 2 + (int)k)[i];
        y0[i] = y1[i] = alpha * sum;
    }
}

/* NaN wins, so a replica's NaN reaches every replica through MAX or MIN. */
void ref_maximum(const tdm_launch *l)
{
    float *z = ref_f(l, 0), *x = ref_f(l, 1), *y = ref_f(l, 2);
    for (uint32_t i = 0; i < l->u[0]; i++)
        z[i] = isnan(x[i]) || isnan(y[i]) ? NAN : (y[i] > x[i] ? y[i] : x[i]);
}

void ref_minimum(const tdm_launch *l)
{
    float *z = ref_f(l, 0), *x = ref_f(l, 1), *y = ref_f(l, 2);
    for (uint32_t i = 0; i < l->u[0]; i++)
        z[i] = isnan(x[i]) || isnan(y[i]) ? NAN : (y[i] < x[i] ? y[i] : x[i]);
}

void ref_bias_add(const tdm_launch *l)
{
    float *y = ref_f(l, 0), *x = ref_f(l, 1), *b = ref_f(l, 2);
    uint32_t rows = l->u[0], cols = l->u[1];
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            y[(size_t)r * cols + c] = x[(size_t)r * cols + c] + b[c];
}

/* Two comparisons, as every backend writes them: a NaN fails both and passes through,
 * and a zero keeps its sign unless a bound replaces it. */
void ref_clip(const tdm_launch *l)
{
    float *y = ref_f(l, 0), *x = ref_f(l, 1), lo = l->f[0], hi = l->f[1];
    for (uint32_t i = 0; i < l->u[0]; i++) {
        float t = x[i] < lo ? lo : x[i];
        y[i] = t > hi ? hi : t;
    }
}
