#version 450
// gelu: y[i] = x / 2 * (1 + erf(x / sqrt(2))) = x * Phi(x), the exact GELU, with Phi
// from erfc so that the lower tail does not cancel (tdm_math.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_gelu
#include "kernel_bindings.glsl"
#include "tdm_math.glsl"

float tdm_map(float a)
{
    return a * tdm_normal_cdf(a);
}

#include "map_unary.glsl"
