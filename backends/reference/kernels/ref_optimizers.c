/* Optimizer updates with their slots, in float, following TensorFlow's training ops
 * (tensorflow/core/kernels/training_ops.cc) term by term. */
#include <math.h>

#include "ref_kernels.h"

/* w -= lr * g */
void ref_sgd(const tdm_launch *l)
{
    float *w = ref_f(l, 0), *g = ref_f(l, 1), lr = l->f[0];
    for (uint32_t i = 0; i < l->u[0]; i++)
        w[i] = (float)(w[i] - (double)lr * g[i]);
}

/* ApplyMomentum: m = momentum * m + g; w -= lr * m, or with Nesterov
 * w -= lr * g + lr * momentum * m */
void ref_momentum(const tdm_launch *l)
{
    float *w = ref_f(l, 0), *g = ref_f(l, 1), *m = ref_f(l, 2);
    float lr = l->f[0], mu = l->f[1];
    for (uint32_t i = 0; i < l->u[0]; i++) {
        m[i] = mu * m[i] + g[i];
        w[i] -= l->u[1] ? lr * g[i] + lr * mu * m[i] : lr * m[i];
    }
}

/* ApplyAdagradV2: acc += g * g; w -= lr * g / (sqrt(acc) + eps) */
void ref_adagrad(const tdm_launch *l)
{
    float *w = ref_f(l, 0), *g = ref_f(l, 1), *acc = ref_f(l, 2);
    float lr = l->f[0], eps = l->f[1];
    for (uint32_t i = 0; i < l->u[0]; i++) {
        acc[i] += g[i] * g[i];
        w[i] -= lr * g[i] / (sqrtf(acc[i]) + eps);
    }
}

/* ApplyRMSProp / ApplyCenteredRMSProp: eps inside the square root */
void ref_rmsprop(const tdm_launch *l)
{
    float *w = ref_f(l, 0), *g = ref_f(l, 1), *ms = ref_f(l, 2), *mom = ref_f(l, 3);
    float *mg = ref_f(l, 4), lr = l->f[0], rho = l->f[1], mu = l->f[2], eps = l->f[3];
    for (uint32_t i = 0; i < l->u[0]; i++) {
        ms[i] = rho * ms[i] + (1.0f - rho) * g[i] * g[i];
        float denom = ms[i];
        if (l->u[1]) {
            mg[i] = rho * mg[i] + (1.0f - rho) * g[i];
            denom = ms[i] - mg[i] * mg[i];
        }
        mom[i] = mu * mom[i] + lr * g[i] / sqrtf(denom + eps);
        w[i] -= mom[i];
    }
}

/* ApplyAdam: bias correction folded into the learning rate, eps outside sqrt */
static void adam_step(const tdm_launch *l, int decoupled_decay)
{
    float *w = ref_f(l, 0), *g = ref_f(l, 1), *m = ref_f(l, 2), *v = ref_f(l, 3);
    float lr = l->f[0], b1 = l->f[1], b2 = l->f[2], eps = l->f[3];
    float lr_t = lr * sqrtf(1.0f - l->f[5]) / (1.0f - l->f[4]);
    for (uint32_t i = 0; i < l->u[0]; i++) {
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        float old = decoupled_decay ? w[i] - l->f[6] * w[i] : w[i];
        w[i] = old - lr_t * m[i] / (sqrtf(v[i]) + eps);
    }
}

void ref_adam(const tdm_launch *l) { adam_step(l, 0); }

/* AdamW: the decay uses the old w, then the Adam step */
void ref_adamw(const tdm_launch *l) { adam_step(l, 1); }
