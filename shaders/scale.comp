#version 450
// scale: y[i] = alpha * x[i] (one rounding: tolerance 0).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_scale
#include "kernel_bindings.glsl"

float tdm_map(float a)
{
    precise float r = TDM_F_alpha * a;
    return r;
}

#include "map_unary.glsl"
