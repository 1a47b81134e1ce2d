#version 450
// mul: z[i] = x[i] * y[i] (tolerance 0).
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_mul
#include "kernel_bindings.glsl"

float tdm_map(float a, float b)
{
    precise float r = a * b;
    return r;
}

#include "map_binary.glsl"
