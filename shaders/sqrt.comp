#version 450
// sqrt: y[i] = sqrt(x[i]); NaN for x < 0 and for NaN (GLSL leaves both undefined).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sqrt
#include "kernel_bindings.glsl"

float tdm_map(float a)
{
    return (isnan(a) || a < 0.0) ? tdm_nan() : sqrt(a);
}

#include "map_unary.glsl"
