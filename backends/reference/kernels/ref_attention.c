/* Attention's causal softmax and its gradient. The forward rounds the exponent's
 * argument in float as the devices do (so that it is bitwise theirs), then takes exp,
 * the sum and the quotient in double, rounded once; the gradient is a fixed chain of
 * float operations, bitwise the devices'. */
#include <math.h>

#include "ref_kernels.h"

/* The columns row r reads: those up to its position where causal. */
static uint32_t read_columns(uint32_t r, uint32_t cols, uint32_t causal)
{
    return causal ? r % cols + 1 : cols;
}

void ref_attention_softmax(const ref_attention_softmax_args *a)
{
    uint32_t cols = a->cols;
    for (uint32_t r = 0; r < a->rows; r++) {
        const float *s = a->s + (size_t)r * cols;
        float *p = a->p + (size_t)r * cols, mx = -INFINITY;
        uint32_t len = read_columns(r, cols, a->causal);
        for (uint32_t j = 0; j < len; j++) {
            float t = a->scale * s[j];
            mx = isnan(mx) || t <= mx ? mx : t; /* NaN once any is NaN */
        }
        double total = 0.0;
        for (uint32_t j = 0; j < len; j++)
            total += exp((double)(a->scale * s[j] - mx));
        for (uint32_t j = 0; j < cols; j++)
            p[j] = j < len ? (float)(exp((double)(a->scale * s[j] - mx)) / total) : 0.0f;
    }
}

void ref_attention_softmax_grad(const ref_attention_softmax_grad_args *a)
{
    uint32_t cols = a->cols;
    for (uint32_t r = 0; r < a->rows; r++) {
        size_t row = (size_t)r * cols;
        const float *dp = a->dp + row, *p = a->p + row;
        uint32_t len = read_columns(r, cols, a->causal);
        float d = 0.0f;
        for (uint32_t j = 0; j < len; j++)
            d = d + dp[j] * p[j];
        for (uint32_t j = 0; j < cols; j++)
            a->ds[row + j] = j < len ? (a->scale * p[j]) * (dp[j] - d) : 0.0f;
    }
}
