#version 450
// adagrad (TensorFlow's ApplyAdagradV2): acc += g * g; w -= lr * g / (sqrt(acc) + eps).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, , float, vec4, w);
TDM_BUFFER_AND_QUADS(1, readonly, float, vec4, g);
TDM_BUFFER_AND_QUADS(2, , float, vec4, acc);

void adagrad_step(inout float wi, float gi, inout float ai)
{
    ai += gi * gi;
    wi -= args.f[0] * gi / (sqrt(ai) + args.f[1]);
}

void tdm_ew_item(uint i)
{
    float wi = w[args.off[0] + i], ai = acc[args.off[2] + i];
    adagrad_step(wi, g[args.off[1] + i], ai);
    acc[args.off[2] + i] = ai;
    w[args.off[0] + i] = wi;
}

void tdm_ew_quad(uint i)
{
    vec4 wq = w4[TDM_QUAD(0, i)], gq = g4[TDM_QUAD(1, i)], aq = acc4[TDM_QUAD(2, i)];
    for (int k = 0; k < 4; k++)
        adagrad_step(wq[k], gq[k], aq[k]);
    acc4[TDM_QUAD(2, i)] = aq;
    w4[TDM_QUAD(0, i)] = wq;
}

#define TDM_EW_VIEWS 3
#include "elementwise.glsl"
