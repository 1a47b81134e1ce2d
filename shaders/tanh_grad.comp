#version 450
// tanh_grad: dx = dy * (1 - y * y), y the forward output.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_tanh_grad
#include "kernel_bindings.glsl"

float tdm_map(float dy, float y)
{
    return dy * (1.0 - y * y);
}

#define TDM_MAP_DST dx
#define TDM_MAP_LHS dy
#define TDM_MAP_RHS y
#include "map_binary.glsl"
