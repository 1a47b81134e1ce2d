#version 450
// fill: y[i] = value. Stored as the value's bits, so any float (NaN payloads,
// denormals) arrives unchanged.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_fill
#include "kernel_bindings.glsl"

TDM_VIEW_AND_QUADS_AS(y, y, uint, uvec4);

void tdm_ew_item(uint i)
{
    y[TDM_OFF_y + i] = floatBitsToUint(TDM_F_value);
}

void tdm_ew_quad(uint i)
{
    y4[TDM_QUAD(y, i)] = uvec4(floatBitsToUint(TDM_F_value));
}

#include "elementwise.glsl"
