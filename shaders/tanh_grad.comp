#version 450
// tanh_grad: dx = dy * (1 - y * y), y the forward output.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

float tdm_map(float dy, float y)
{
    return dy * (1.0 - y * y);
}

#include "map_binary.glsl"
