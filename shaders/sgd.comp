#version 450
// sgd: w -= lr * g.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, , float, vec4, w);
TDM_BUFFER_AND_QUADS(1, readonly, float, vec4, g);

void tdm_ew_item(uint i)
{
    w[args.off[0] + i] -= args.f[0] * g[args.off[1] + i];
}

void tdm_ew_quad(uint i)
{
    w4[TDM_QUAD(0, i)] -= args.f[0] * g4[TDM_QUAD(1, i)];
}

#define TDM_EW_VIEWS 2
#include "elementwise.glsl"
