#version 450
// relu: y[i] = max(x[i], 0); NaN stays NaN (activations.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_relu
#include "kernel_bindings.glsl"
#include "activations.glsl"

float tdm_map(float a)
{
    return tdm_relu(a);
}

#include "map_unary.glsl"
