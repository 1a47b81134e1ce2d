#version 450
// sigmoid: y[i] = 1 / (1 + exp(-x[i])), exp being tdm_exp (tdm_math.glsl); for x < -88.7
// exp overflows to infinity, giving 0 (the true value is a denormal or zero).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sigmoid
#include "kernel_bindings.glsl"
#include "tdm_math.glsl"

float tdm_map(float a)
{
    return isnan(a) ? a : 1.0 / (1.0 + tdm_exp(-a));
}

#include "map_unary.glsl"
