/* Elementwise kernels and the collective building block, as kernels.def states them. */
#include <math.h>

#include "ref_kernels.h"

void ref_fill(const ref_fill_args *args)
{
    float *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = args->value;
}

void ref_copy(const ref_copy_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = x[i];
}

void ref_scale(const ref_scale_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = args->alpha * x[i];
}

/* In double: the exact alpha * x + y, rounded once. */
void ref_axpy(const ref_axpy_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = (float)((double)args->alpha * x[i] + y[i]);
}

void ref_add(const ref_add_args *args)
{
    float *z = args->z, *x = args->x, *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        z[i] = x[i] + y[i];
}

void ref_sub(const ref_sub_args *args)
{
    float *z = args->z, *x = args->x, *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        z[i] = x[i] - y[i];
}

void ref_mul(const ref_mul_args *args)
{
    float *z = args->z, *x = args->x, *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        z[i] = x[i] * y[i];
}

void ref_sqrt(const ref_sqrt_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = sqrtf(x[i]);
}

void ref_cast_f32_f16(const ref_cast_f32_f16_args *args)
{
    uint16_t *y = args->y;
    float *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = tdm_f16_from_f32(x[i]);
}

void ref_cast_f16_f32(const ref_cast_f16_f32_args *args)
{
    float *y = args->y;
    uint16_t *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = tdm_f32_from_f16(x[i]);
}

/* Truncation in the range where it is defined, INT32_MIN's bits elsewhere and for
 * NaN (whose comparisons are false). */
void ref_cast_f32_i32(const ref_cast_f32_i32_args *args)
{
    uint32_t *y = args->y;
    float *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = x[i] > -0x1p31f && x[i] < 0x1p31f ? (uint32_t)(int32_t)x[i] : 0x80000000u;
}

/* Left to right in float: the order every backend must follow. */
void ref_accumulate(const ref_accumulate_args *args)
{
    float *y = args->y;
    const float *x[] = {args->x0, args->x1, args->x2, args->x3, args->x4, args->x5, args->x6};
    uint32_t inputs = args->inputs;
    for (uint32_t i = 0; i < args->n; i++) {
        float sum = x[0][i];
        for (uint32_t k = 1; k < inputs; k++)
            sum += x[k][i];
        y[i] = sum;
    }
}

/* The same sum as accumulate, then one rounding for the scale. */
void ref_accumulate_pair(const ref_accumulate_pair_args *args)
{
    float *y0 = args->y0, *y1 = args->y1, alpha = args->alpha;
    const float *x[] = {args->x0, args->x1, args->x2, args->x3, args->x4, args->x5};
    uint32_t inputs = args->inputs;
    for (uint32_t i = 0; i < args->n; i++) {
        float sum = x[0][i];
        for (uint32_t k = 1; k < inputs; k++)
            sum += x[k][i];
        y0[i] = y1[i] = alpha * sum;
    }
}

/* accumulate's order over halves, each partial sum rounded to float16, then one
 * rounding of the scaled sum. */
void ref_accumulate_f16(const ref_accumulate_f16_args *args)
{
    uint16_t *y = args->y;
    const uint16_t *x[] = {args->x0, args->x1, args->x2, args->x3, args->x4, args->x5, args->x6};
    uint32_t inputs = args->inputs;
    for (uint32_t i = 0; i < args->n; i++) {
        float sum = tdm_f32_from_f16(x[0][i]);
        for (uint32_t k = 1; k < inputs; k++)
            sum = tdm_f32_from_f16(tdm_f16_from_f32(sum + tdm_f32_from_f16(x[k][i])));
        y[i] = tdm_f16_from_f32(args->alpha * sum);
    }
}

/* NaN wins, so a replica's NaN reaches every replica through MAX or MIN. */
void ref_maximum(const ref_maximum_args *args)
{
    float *z = args->z, *x = args->x, *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        z[i] = isnan(x[i]) || isnan(y[i]) ? NAN : (y[i] > x[i] ? y[i] : x[i]);
}

void ref_minimum(const ref_minimum_args *args)
{
    float *z = args->z, *x = args->x, *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        z[i] = isnan(x[i]) || isnan(y[i]) ? NAN : (y[i] < x[i] ? y[i] : x[i]);
}

void ref_bias_add(const ref_bias_add_args *args)
{
    float *y = args->y, *x = args->x, *b = args->b;
    uint32_t rows = args->rows, cols = args->cols;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            y[(size_t)r * cols + c] = x[(size_t)r * cols + c] + b[c];
}

/* Two comparisons, as every backend writes them: a NaN fails both and passes through,
 * and a zero keeps its sign unless a bound replaces it. */
void ref_clip(const ref_clip_args *args)
{
    float *y = args->y, *x = args->x, lo = args->lo, hi = args->hi;
    for (uint32_t i = 0; i < args->n; i++) {
        float t = x[i] < lo ? lo : x[i];
        y[i] = t > hi ? hi : t;
    }
}
