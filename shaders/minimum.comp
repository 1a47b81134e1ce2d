#version 450
// minimum: z[i] = min(x[i], y[i]), NaN if either is NaN; for equal values (and zeros of
// both signs) x's, as the reference's "y < x ? y : x" (tolerance 0).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_minimum
#include "kernel_bindings.glsl"

float tdm_map(float a, float b)
{
    return (isnan(a) || isnan(b)) ? tdm_nan() : (b < a ? b : a);
}

#include "map_binary.glsl"
