#version 450
// scale: y[i] = alpha * x[i] (one rounding: tolerance 0).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

float tdm_map(float a)
{
    precise float r = args.f[0] * a;
    return r;
}

#include "map_unary.glsl"
