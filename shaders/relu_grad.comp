#version 450
// relu_grad: dx = x > 0 ? dy : 0 (NaN x gives 0).
#extension GL_GOOGLE_include_directive : require
#include "kernel_args.glsl"

float tdm_map(float dy, float x)
{
    return x > 0.0 ? dy : 0.0;
}

#include "map_binary.glsl"
