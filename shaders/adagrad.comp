#version 450
// adagrad (TensorFlow's ApplyAdagradV2): acc += g * g; w -= lr * g / (sqrt(acc) + eps).
// `precise`: each operation rounds as written, none fused (docs/KERNELS.md).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_adagrad
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS(w);
TDM_VIEW_AND_QUADS(g);
TDM_VIEW_AND_QUADS(acc);

void adagrad_step(inout float wi, float gi, inout float ai)
{
    precise float a_new = ai + gi * gi;
    precise float w_new = wi - TDM_F_lr * gi / (sqrt(a_new) + TDM_F_eps);
    ai = a_new;
    wi = w_new;
}

void tdm_ew_item(uint i)
{
    float wi = w[TDM_OFF_w + i], ai = acc[TDM_OFF_acc + i];
    adagrad_step(wi, g[TDM_OFF_g + i], ai);
    acc[TDM_OFF_acc + i] = ai;
    w[TDM_OFF_w + i] = wi;
}

void tdm_ew_quad(uint i)
{
    vec4 wq = w4[TDM_QUAD(w, i)], gq = g4[TDM_QUAD(g, i)], aq = acc4[TDM_QUAD(acc, i)];
    for (int k = 0; k < 4; k++)
        adagrad_step(wq[k], gq[k], aq[k]);
    acc4[TDM_QUAD(acc, i)] = aq;
    w4[TDM_QUAD(w, i)] = wq;
}

#include "elementwise.glsl"
