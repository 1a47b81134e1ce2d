#version 450
// sigmoid_grad: dx = dy * y * (1 - y), y the forward output.
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

float tdm_map(float dy, float y)
{
    return dy * y * (1.0 - y);
}

#include "map_binary.glsl"
