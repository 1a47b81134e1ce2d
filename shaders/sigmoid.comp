#version 450
// sigmoid: y[i] = 1 / (1 + exp(-x[i])) (activations.glsl).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sigmoid
#include "kernel_bindings.glsl"
#include "activations.glsl"

float tdm_map(float a)
{
    return tdm_sigmoid(a);
}

#include "map_unary.glsl"
