#version 450
// tanh: y[i] = tanh(x[i]), accurate near 0 and +-1 for large |x| (tdm_math.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_tanh
#include "kernel_bindings.glsl"
#include "activations.glsl"

float tdm_map(float a)
{
    return tdm_tanh(a);
}

#include "map_unary.glsl"
