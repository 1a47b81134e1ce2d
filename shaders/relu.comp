#version 450
// relu: y[i] = max(x[i], 0); NaN stays NaN (GLSL's max is undefined for NaN).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_relu
#include "kernel_bindings.glsl"

float tdm_map(float a)
{
    return (isnan(a) || a > 0.0) ? a : 0.0;
}

#include "map_unary.glsl"
