#version 450
// fill: y[i] = value. Stored as the value's bits, so any float (NaN payloads,
// denormals) arrives unchanged.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

TDM_BUFFER_AND_QUADS(0, writeonly, uint, uvec4, y);

void tdm_ew_item(uint i)
{
    y[args.off[0] + i] = floatBitsToUint(args.f[0]);
}

void tdm_ew_quad(uint i)
{
    y4[TDM_QUAD(0, i)] = uvec4(floatBitsToUint(args.f[0]));
}

#define TDM_EW_VIEWS 1
#include "elementwise.glsl"
