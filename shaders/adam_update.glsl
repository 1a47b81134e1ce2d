// The update adam and adamw share (TensorFlow's ApplyAdam: eps outside the square
// root, after bias correction):
//   lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m = beta1 * m + (1 - beta1) * g;  v = beta2 * v + (1 - beta2) * g * g
//   w -= lr_t * m / (sqrt(v) + eps)
// Buffers w, g, m, v; floats lr, beta1, beta2, eps, beta1_power, beta2_power, then
// (adamw) weight_decay. TDM_ADAM_DECAY(w) is what the old w loses before the Adam step.
// `precise`: each operation rounds as written, none fused (docs/KERNELS.md).
#ifndef TDM_ADAM_UPDATE_GLSL
#define TDM_ADAM_UPDATE_GLSL

TDM_VIEW_AND_QUADS(w);
TDM_VIEW_AND_QUADS(g);
TDM_VIEW_AND_QUADS(m);
TDM_VIEW_AND_QUADS(v);

void adam_step(inout float wi, float gi, inout float mi, inout float vi)
{
    float lr = TDM_F_lr, beta1 = TDM_F_beta1, beta2 = TDM_F_beta2, eps = TDM_F_eps;
    precise float lr_t = lr * sqrt(1.0 - TDM_F_beta2_power) / (1.0 - TDM_F_beta1_power);
    precise float m_new = beta1 * mi + (1.0 - beta1) * gi;
    precise float v_new = beta2 * vi + (1.0 - beta2) * gi * gi;
    precise float w_new = (wi - TDM_ADAM_DECAY(wi)) - lr_t * m_new / (sqrt(v_new) + eps);
    mi = m_new;
    vi = v_new;
    wi = w_new;
}

void tdm_ew_item(uint i)
{
    float wi = w[TDM_OFF_w + i], mi = m[TDM_OFF_m + i], vi = v[TDM_OFF_v + i];
    adam_step(wi, g[TDM_OFF_g + i], mi, vi);
    m[TDM_OFF_m + i] = mi;
    v[TDM_OFF_v + i] = vi;
    w[TDM_OFF_w + i] = wi;
}

void tdm_ew_quad(uint i)
{
    vec4 wq = w4[TDM_QUAD(w, i)], gq = g4[TDM_QUAD(g, i)];
    vec4 mq = m4[TDM_QUAD(m, i)], vq = v4[TDM_QUAD(v, i)];
    for (int k = 0; k < 4; k++)
        adam_step(wq[k], gq[k], mq[k], vq[k]);
    m4[TDM_QUAD(m, i)] = mq;
    v4[TDM_QUAD(v, i)] = vq;
    w4[TDM_QUAD(w, i)] = wq;
}

#include "elementwise.glsl"

#endif
