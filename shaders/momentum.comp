#version 450
// momentum (TensorFlow's ApplyMomentum): m = momentum * m + g; then w -= lr * m, or
// with Nesterov w -= lr * g + lr * momentum * m (with the new m).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, , float, vec4, w);
TDM_BUFFER_AND_QUADS(1, readonly, float, vec4, g);
TDM_BUFFER_AND_QUADS(2, , float, vec4, m);

void momentum_step(inout float wi, float gi, inout float mi)
{
    float lr = args.f[0], momentum = args.f[1];
    mi = momentum * mi + gi;
    wi -= args.u[1] != 0u ? lr * gi + lr * momentum * mi : lr * mi;
}

void tdm_ew_item(uint i)
{
    float wi = w[args.off[0] + i], mi = m[args.off[2] + i];
    momentum_step(wi, g[args.off[1] + i], mi);
    m[args.off[2] + i] = mi;
    w[args.off[0] + i] = wi;
}

void tdm_ew_quad(uint i)
{
    vec4 wq = w4[TDM_QUAD(0, i)], gq = g4[TDM_QUAD(1, i)], mq = m4[TDM_QUAD(2, i)];
    for (int k = 0; k < 4; k++)
        momentum_step(wq[k], gq[k], mq[k]);
    m4[TDM_QUAD(2, i)] = mq;
    w4[TDM_QUAD(0, i)] = wq;
}

#define TDM_EW_VIEWS 3
#include "elementwise.glsl"
