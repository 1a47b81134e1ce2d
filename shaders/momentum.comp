#version 450
// momentum (TensorFlow's ApplyMomentum): m = momentum * m + g; then w -= lr * m, or
// with Nesterov w -= lr * g + lr * momentum * m (with the new m).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_momentum
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(w);
TDM_VIEW_AND_QUADS(g);
TDM_VIEW_AND_QUADS(m);

void momentum_step(inout float wi, float gi, inout float mi)
{
    float lr = TDM_F_lr, momentum = TDM_F_momentum;
    // precise: each operation rounded, none fused, as the reference and OpenCL do
    precise float m = momentum * mi + gi;
    precise float step = TDM_U_nesterov != 0u ? lr * gi + lr * momentum * m : lr * m;
    precise float w = wi - step;
    mi = m;
    wi = w;
}

void tdm_ew_item(uint i)
{
    float wi = w[TDM_OFF_w + i], mi = m[TDM_OFF_m + i];
    momentum_step(wi, g[TDM_OFF_g + i], mi);
    m[TDM_OFF_m + i] = mi;
    w[TDM_OFF_w + i] = wi;
}

void tdm_ew_quad(uint i)
{
    vec4 wq = w4[TDM_QUAD(w, i)], gq = g4[TDM_QUAD(g, i)], mq = m4[TDM_QUAD(m, i)];
    for (int k = 0; k < 4; k++)
        momentum_step(wq[k], gq[k], mq[k]);
    m4[TDM_QUAD(m, i)] = mq;
    w4[TDM_QUAD(w, i)] = wq;
}

#include "elementwise.glsl"
