/* Batch and layer normalisation in float, one operation at a time in the order
 * kernels.def gives, as the devices compute them: every result but inv_std is
 * bitwise theirs. inv_std is rounded once from double (the devices' rsqrt may be
 * 2 ulp off). */
#include <math.h>

#include "ref_kernels.h"

static float inverse_sqrt(float v)
{
    return (float)(1.0 / sqrt((double)v));
}

void ref_batch_norm_stats(const ref_batch_norm_stats_args *a)
{
    for (uint32_t c = 0; c < a->cols; c++) {
        float m = a->sum[c] * a->inv_count, ex2 = a->sumsq[c] * a->inv_count;
        float v = ex2 - m * m;
        a->mean[c] = m;
        a->inv_std[c] = inverse_sqrt((v < 0.0f ? 0.0f : v) + a->epsilon);
    }
}

void ref_batch_norm_apply(const ref_batch_norm_apply_args *a)
{
    uint32_t cols = a->cols;
    for (size_t i = 0; i < (size_t)a->rows * cols; i++) {
        size_t c = i % cols;
        a->y[i] = ((a->x[i] - a->mean[c]) * a->inv_std[c]) * a->gamma[c] + a->beta[c];
    }
}

void ref_batch_norm_xhat_dy(const ref_batch_norm_xhat_dy_args *a)
{
    uint32_t cols = a->cols;
    for (size_t i = 0; i < (size_t)a->rows * cols; i++) {
        size_t c = i % cols;
        a->xhat_dy[i] = a->dy[i] * ((a->x[i] - a->mean[c]) * a->inv_std[c]);
    }
}

void ref_batch_norm_grad(const ref_batch_norm_grad_args *a)
{
    uint32_t cols = a->cols;
    float ic = a->inv_count;
    for (size_t i = 0; i < (size_t)a->rows * cols; i++) {
        size_t c = i % cols;
        float xh = (a->x[i] - a->mean[c]) * a->inv_std[c];
        float t = (a->dy[i] - a->sum_dy[c] * ic) - xh * (a->sum_dy_xhat[c] * ic);
        a->dx[i] = (a->gamma[c] * a->inv_std[c]) * t;
    }
}

void ref_layer_norm(const ref_layer_norm_args *a)
{
    uint32_t cols = a->cols;
    for (uint32_t r = 0; r < a->rows; r++) {
        const float *x = a->x + (size_t)r * cols;
        float *y = a->y + (size_t)r * cols, s = 0.0f, q = 0.0f;
        for (uint32_t c = 0; c < cols; c++)
            s = s + x[c];
        float m = s * a->inv_cols;
        for (uint32_t c = 0; c < cols; c++) {
            float d = x[c] - m;
            q = q + d * d;
        }
        float is = inverse_sqrt(q * a->inv_cols + a->epsilon);
        a->mean[r] = m;
        a->inv_std[r] = is;
        for (uint32_t c = 0; c < cols; c++)
            y[c] = ((x[c] - m) * is) * a->gamma[c] + a->beta[c];
    }
}

void ref_layer_norm_grad(const ref_layer_norm_grad_args *a)
{
    uint32_t cols = a->cols;
    for (uint32_t r = 0; r < a->rows; r++) {
        size_t row = (size_t)r * cols;
        const float *dy = a->dy + row, *x = a->x + row, *gamma = a->gamma;
        float m = a->mean[r], is = a->inv_std[r], s1 = 0.0f, s2 = 0.0f;
        for (uint32_t c = 0; c < cols; c++) {
            float g = dy[c] * gamma[c], xh = (x[c] - m) * is;
            s1 = s1 + g;
            s2 = s2 + g * xh;
        }
        float a1 = s1 * a->inv_cols, a2 = s2 * a->inv_cols;
        for (uint32_t c = 0; c < cols; c++) {
            float g = dy[c] * gamma[c], xh = (x[c] - m) * is;
            a->dx[row + c] = is * ((g - a1) - xh * a2);
            a->xhat_dy[row + c] = dy[c] * xh;
        }
    }
}
