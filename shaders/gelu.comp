#version 450
// gelu: y[i] = x / 2 * (1 + erf(x / sqrt(2))) = x * Phi(x), the exact GELU
// (activations.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gelu
#include "kernel_bindings.glsl"
#include "activations.glsl"

float tdm_map(float a)
{
    return tdm_gelu(a);
}

#include "map_unary.glsl"
