#version 450
// sigmoid_grad: dx = dy * y * (1 - y), y the forward output.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_sigmoid_grad
#include "kernel_bindings.glsl"

float tdm_map(float dy, float y)
{
    return dy * y * (1.0 - y);
}

#define TDM_MAP_DST dx
#define TDM_MAP_LHS dy
#define TDM_MAP_RHS y
#include "map_binary.glsl"
