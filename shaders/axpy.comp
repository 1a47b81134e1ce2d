#version 450
// axpy: y[i] = alpha * x[i] + y[i] (contracted to an fma or not: both within tolerance).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, , float, vec4, y);
TDM_BUFFER_AND_QUADS(1, readonly, float, vec4, x);

void tdm_ew_item(uint i)
{
    y[args.off[0] + i] = args.f[0] * x[args.off[1] + i] + y[args.off[0] + i];
}

void tdm_ew_quad(uint i)
{
    y4[TDM_QUAD(0, i)] = args.f[0] * x4[TDM_QUAD(1, i)] + y4[TDM_QUAD(0, i)];
}

#define TDM_EW_VIEWS 2
#include "elementwise.glsl"
