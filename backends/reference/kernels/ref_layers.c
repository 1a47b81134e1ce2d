/* Layer forward and backward kernels, losses and dropout. */
#include <math.h>

#include "ref_kernels.h"

void ref_relu(const ref_relu_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = isnan(x[i]) || x[i] > 0.0f ? x[i] : 0.0f;
}

void ref_relu_grad(const ref_relu_grad_args *args)
{
    float *dx = args->dx, *dy = args->dy, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
}

void ref_tanh(const ref_tanh_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = tanhf(x[i]);
}

void ref_tanh_grad(const ref_tanh_grad_args *args)
{
    float *dx = args->dx, *dy = args->dy, *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        dx[i] = dy[i] * (1.0f - y[i] * y[i]);
}

void ref_sigmoid(const ref_sigmoid_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = (float)(1.0 / (1.0 + exp(-(double)x[i])));
}

void ref_sigmoid_grad(const ref_sigmoid_grad_args *args)
{
    float *dx = args->dx, *dy = args->dy, *y = args->y;
    for (uint32_t i = 0; i < args->n; i++)
        dx[i] = dy[i] * y[i] * (1.0f - y[i]);
}

/* Phi(x), the standard normal CDF, in double. */
static double normal_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

void ref_gelu(const ref_gelu_args *args)
{
    float *y = args->y, *x = args->x;
    for (uint32_t i = 0; i < args->n; i++)
        y[i] = (float)(x[i] * normal_cdf(x[i]));
}

void ref_gelu_grad(const ref_gelu_grad_args *args)
{
    float *dx = args->dx, *dy = args->dy, *x = args->x;
    const double inv_sqrt_2pi = 0.3989422804014327;
    for (uint32_t i = 0; i < args->n; i++) {
        double v = x[i], pdf = inv_sqrt_2pi * exp(-0.5 * v * v);
        dx[i] = (float)(dy[i] * (normal_cdf(v) + v * pdf));
    }
}

/* One row: the max is subtracted first so no exp overflows; a negative label (as
 * int32) masks it. */
static void xent_row(const float *logits, uint32_t cols, uint32_t label, float grad_scale,
                     float *loss, float *dlogits)
{
    if (label >= 0x80000000u) {
        *loss = 0.0f;
        for (uint32_t c = 0; c < cols; c++)
            dlogits[c] = 0.0f;
        return;
    }
    double max = -INFINITY, total = 0.0;
    for (uint32_t c = 0; c < cols; c++)
        max = isnan(logits[c]) || logits[c] > max ? logits[c] : max;
    for (uint32_t c = 0; c < cols; c++)
        total += exp(logits[c] - max);
    double log_total = log(total);
    *loss = label < cols ? (float)(log_total + max - logits[label]) : NAN;
    for (uint32_t c = 0; c < cols; c++) {
        double p = exp(logits[c] - max - log_total);
        dlogits[c] = (float)(grad_scale * (p - (c == label ? 1.0 : 0.0)));
    }
}

void ref_softmax_xent(const ref_softmax_xent_args *args)
{
    float *loss = args->loss, *dlogits = args->dlogits, *logits = args->logits;
    uint32_t *labels = args->labels, rows = args->rows, cols = args->cols;
    for (uint32_t r = 0; r < rows; r++)
        xent_row(logits + (size_t)r * cols, cols, labels[r], args->grad_scale, loss + r,
                 dlogits + (size_t)r * cols);
}

void ref_mse(const ref_mse_args *args)
{
    float *loss = args->loss, *dpred = args->dpred, *pred = args->pred, *target = args->target;
    for (uint32_t i = 0; i < args->n; i++) {
        float diff = pred[i] - target[i];
        loss[i] = diff * diff;
        dpred[i] = args->grad_scale * 2.0f * diff;
    }
}

/* sign(d) as the kernels spell it: 1, -1, +0 for either zero, NaN for NaN. */
static float sign_of(float d)
{
    return d > 0.0f ? 1.0f : d < 0.0f ? -1.0f : d == 0.0f ? 0.0f : d;
}

void ref_mae(const ref_mae_args *args)
{
    float *loss = args->loss, *dpred = args->dpred, *pred = args->pred, *target = args->target;
    for (uint32_t i = 0; i < args->n; i++) {
        float diff = pred[i] - target[i];
        loss[i] = fabsf(diff);
        dpred[i] = args->grad_scale * sign_of(diff);
    }
}

void ref_huber(const ref_huber_args *args)
{
    float *loss = args->loss, *dpred = args->dpred, *pred = args->pred, *target = args->target;
    float delta = args->delta;
    for (uint32_t i = 0; i < args->n; i++) {
        float diff = pred[i] - target[i], size = fabsf(diff);
        loss[i] = size <= delta ? (0.5f * diff) * diff : delta * (size - 0.5f * delta);
        float t = diff < -delta ? -delta : diff; /* NaN fails both comparisons */
        dpred[i] = args->grad_scale * (t > delta ? delta : t);
    }
}

/* In double, rounded once; max(x, 0) as x > 0 ? x : 0, so that NaN gives NaN through
 * x * z. */
void ref_sigmoid_xent(const ref_sigmoid_xent_args *args)
{
    float *loss = args->loss, *dlogits = args->dlogits, *logits = args->logits;
    float *targets = args->targets;
    for (uint32_t i = 0; i < args->n; i++) {
        double x = logits[i], z = targets[i];
        loss[i] = (float)(((x > 0.0 ? x : 0.0) - x * z) + log1p(exp(-fabs(x))));
        dlogits[i] = (float)(args->grad_scale * (1.0 / (1.0 + exp(-x)) - z));
    }
}

/* One row in double. Each lse - l[c] is rounded to float before its target weighs it,
 * as a device's is: a difference past FLT_MAX (logits of both signs near it) is then
 * infinite here too, not a finite double that a target under 1/2 brings back. */
static void soft_xent_row(const float *l, const float *t, uint32_t cols, float grad_scale,
                          float *loss, float *dlogits)
{
    double max = -INFINITY, total = 0.0, mass = 0.0, sum = 0.0;
    for (uint32_t c = 0; c < cols; c++)
        max = isnan(l[c]) || l[c] > max ? l[c] : max;
    for (uint32_t c = 0; c < cols; c++) {
        total += exp(l[c] - max);
        mass += t[c];
    }
    double log_total = log(total), lse = max + log_total;
    for (uint32_t c = 0; c < cols; c++)
        sum += t[c] * (double)(float)(lse - l[c]);
    *loss = (float)sum;
    for (uint32_t c = 0; c < cols; c++) {
        double p = exp(l[c] - max - log_total);
        dlogits[c] = (float)(grad_scale * (p * mass - t[c]));
    }
}

void ref_softmax_xent_soft(const ref_softmax_xent_soft_args *args)
{
    float *loss = args->loss, *dlogits = args->dlogits, *logits = args->logits;
    float *targets = args->targets;
    uint32_t rows = args->rows, cols = args->cols;
    for (uint32_t r = 0; r < rows; r++)
        soft_xent_row(logits + (size_t)r * cols, targets + (size_t)r * cols, cols, args->grad_scale,
                      loss + r, dlogits + (size_t)r * cols);
}

void ref_dropout(const ref_dropout_args *args)
{
    float *y = args->y, *x = args->x, rate = args->rate;
    const uint32_t key[2] = {args->seed_lo, args->seed_hi};
    for (uint32_t i = 0; i < args->n; i++) {
        uint32_t j = args->offset + i, counter[4] = {j >> 2, 0, 0, 0}, r[4];
        ref_philox4x32_10(counter, key, r);
        float u = (float)(r[j & 3] >> 8) * 0x1p-24f;
        y[i] = u >= rate ? x[i] / (1.0f - rate) : 0.0f;
    }
}

void ref_one_hot(const ref_one_hot_args *args)
{
    float *y = args->y;
    uint32_t *labels = args->labels, rows = args->rows, cols = args->cols;
    for (uint32_t r = 0; r < rows; r++)
        for (uint32_t c = 0; c < cols; c++)
            y[(size_t)r * cols + c] = c == labels[r] ? 1.0f : 0.0f;
}
