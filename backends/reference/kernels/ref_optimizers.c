/* Optimizer updates with their slots, in float, following TensorFlow's training ops
 * (tensorflow/core/kernels/training_ops.cc) term by term. Every operation rounds as
 * written, left to right, none fused into an fma (the target is built with
 * -ffp-contract=off): the devices compute the same chain (docs/KERNELS.md). */
#include <math.h>
#include <stddef.h>

#include "ref_kernels.h"

/* w -= lr * g: the product rounded, then the difference, as every update kernel
 * rounds each operation (docs/KERNELS.md, "One rounding per operation"). */
void ref_sgd(const ref_sgd_args *args)
{
    float *w = args->w, *g = args->g, lr = args->lr;
    for (uint32_t i = 0; i < args->n; i++)
        w[i] -= lr * g[i];
}

/* ApplyMomentum: m = momentum * m + g; w -= lr * m, or with Nesterov
 * w -= lr * g + lr * momentum * m */
void ref_momentum(const ref_momentum_args *args)
{
    float *w = args->w, *g = args->g, *m = args->m;
    float lr = args->lr, mu = args->momentum;
    for (uint32_t i = 0; i < args->n; i++) {
        m[i] = mu * m[i] + g[i];
        w[i] -= args->nesterov ? lr * g[i] + lr * mu * m[i] : lr * m[i];
    }
}

/* ApplyAdagradV2: acc += g * g; w -= lr * g / (sqrt(acc) + eps) */
void ref_adagrad(const ref_adagrad_args *args)
{
    float *w = args->w, *g = args->g, *acc = args->acc;
    float lr = args->lr, eps = args->eps;
    for (uint32_t i = 0; i < args->n; i++) {
        acc[i] += g[i] * g[i];
        w[i] -= lr * g[i] / (sqrtf(acc[i]) + eps);
    }
}

/* ApplyRMSProp / ApplyCenteredRMSProp: eps inside the square root */
void ref_rmsprop(const ref_rmsprop_args *args)
{
    float *w = args->w, *g = args->g, *ms = args->ms, *mom = args->mom;
    float *mg = args->mg, lr = args->lr, rho = args->rho, mu = args->momentum, eps = args->eps;
    for (uint32_t i = 0; i < args->n; i++) {
        ms[i] = rho * ms[i] + (1.0f - rho) * g[i] * g[i];
        float denom = ms[i];
        if (args->centered) {
            mg[i] = rho * mg[i] + (1.0f - rho) * g[i];
            denom = ms[i] - mg[i] * mg[i];
        }
        mom[i] = mu * mom[i] + lr * g[i] / sqrtf(denom + eps);
        w[i] -= mom[i];
    }
}

/* ApplyAdam: bias correction folded into the learning rate, eps outside sqrt; with
 * a decay (AdamW, decay not NULL), w -= *decay * w first, with the old w, even when
 * *decay is 0 (an infinite w then turns NaN, as on a device). adam and adamw share
 * their arguments but for adamw's weight_decay. */
static void adam_step(const ref_adam_args *args, const float *decay)
{
    float *w = args->w, *g = args->g, *m = args->m, *v = args->v;
    float lr = args->lr, b1 = args->beta1, b2 = args->beta2, eps = args->eps;
    float lr_t = lr * sqrtf(1.0f - args->beta2_power) / (1.0f - args->beta1_power);
    for (uint32_t i = 0; i < args->n; i++) {
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        float old = decay ? w[i] - *decay * w[i] : w[i];
        w[i] = old - lr_t * m[i] / (sqrtf(v[i]) + eps);
    }
}

void ref_adam(const ref_adam_args *args)
{
    adam_step(args, NULL);
}

void ref_adamw(const ref_adamw_args *args)
{
    const ref_adam_args adam = {.w = args->w,
                                .g = args->g,
                                .m = args->m,
                                .v = args->v,
                                .n = args->n,
                                .lr = args->lr,
                                .beta1 = args->beta1,
                                .beta2 = args->beta2,
                                .eps = args->eps,
                                .beta1_power = args->beta1_power,
                                .beta2_power = args->beta2_power};
    adam_step(&adam, &args->weight_decay);
}
